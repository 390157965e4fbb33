"""The agent's own screen: a virtual display served by scrcpy-server, its video and input."""
