// The guest half of workspace (see WorkspaceBridge.java): every call but root() is async.
(host) => {
  const options = (o) => (o === undefined || o === null ? {} : o);
  const workspace = Object.freeze({
    read: (path) => host.call("read", path),
    readBytes: (path) => host.call("readBytes", path),
    write: (path, text) => host.call("write", path, text),
    writeBytes: (path, bytes) => host.call("writeBytes", path, bytes),
    list: (path) => host.call("list", path === undefined ? host.call("root") : path),
    stat: (path) => host.call("stat", path),
    root: () => host.call("root"),
    copy: (from, to, o) => host.call("copy", from, to, options(o).overwrite === true),
    move: (from, to, o) => host.call("move", from, to, options(o).overwrite === true),
    mkdir: (path, o) => host.call("mkdir", path, options(o).recursive === true),
    remove: (path, o) => host.call("remove", path, options(o).recursive === true),
  });
  return { workspace };
}
