pytest_plugins = ["tests.adb_env"]
