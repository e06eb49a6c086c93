// The guest half of secrets (see Secrets.java): read-only, synchronous.
(host) => {
  const get = (name) => host.call("get", name);
  const tryGet = (name) => host.call("tryGet", name);
  const list = () => host.call("list");
  return { getSecret: get, secrets: Object.freeze({ get, tryGet, list }) };
}
