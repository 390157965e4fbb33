"""The shell's commands, one module per group; each registers itself with `@command`
(mika/sim/shell/registry.py). Imports none of them: a module that needs one command's
helpers (the scrcpy server, a test) must not load every command; the shell loads them all
through mika/sim/shell/builtins.py."""
