"""The Linux sandbox capability (seed §6 sandbox): a per-conversation workspace behind
bubblewrap, its tools, and the bridge that lets a command call the run's phone tools."""
