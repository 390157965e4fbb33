"""The simulated phone's own scrcpy server (3.3.4): what `app_process / com.genymobile.scrcpy.Server`
does on a real phone, with the same arguments, log lines, sockets and binary formats, acting on
the simulated world. Formats follow scrcpy's server sources (Options.java, Server.java,
DesktopConnection.java, Streamer.java, ControlMessageReader.java); the code is our own."""
