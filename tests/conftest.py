pytest_plugins = ["tests.adb_env", "tests.import_guard", "pytester"]
