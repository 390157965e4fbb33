"""What the phone can read of an APK it is given: the manifest (binary XML) and the few
strings of resources.arsc a manifest points at. The sim can't run an APK's code; it
installs what the package manager would record of it (mika/sim/shell/commands/install.py)."""
