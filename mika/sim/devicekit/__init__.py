"""mobilecli's on-device helper, the DeviceServer, as the simulated phone runs it.

mobilecli 1.0.9 (the Go binary @mobilenext/mobile-mcp 1.0.4 drives) keeps one helper
process on an Android phone for what adb's shell can't do well: listing every package
with its label, the clipboard, typing, key presses and the accessibility dump. Seen on
the wire, the setup is all plain adb:

1. `adb push` of its embedded dex to /data/local/tmp/mobilecli.dex.tmp, then
   `mv -f /data/local/tmp/mobilecli.dex.tmp /data/local/tmp/mobilecli.dex`;
2. `pkill -f '[D]eviceServer'; pkill -f '[U]iDumpServer'; pkill -f 'com.mobilenext.[d]evicekit';
   appops set com.android.shell android:mock_location default; true` (only one UiAutomation
   may exist, so older helpers go first);
3. `CLASSPATH=/data/local/tmp/mobilecli.dex nohup app_process / com.mobilenext.mobilecli.DeviceServer >/dev/null 2>&1 &`;
4. `adb forward tcp:PORT localabstract:mobilecli-server`, then `POST /` with body `{}`
   every 100 ms (300 ms timeout) until any HTTP answer comes, 5 s at most.

Each call after that is one JSON-RPC 2.0 request, `POST /` over a fresh connection:
`{"jsonrpc":"2.0","id":"1","method":…,"params":{…}}`; the server answers one response
with `Connection: close` and closes. (Sources: the trace of a run against this phone,
and mobilecli's devices/android_device_server.go, devices/android_rpc.go and
agents/android/java/DeviceServer.java, HttpRpcServer.java, PackageLister.java,
UiTreeSerializer.java.)

`server` is the process, `wire` its HTTP framing, `rpc` the JSON-RPC envelope,
`methods` what each method does to the world and `ui_tree` the dump's JSON shape.
"""
