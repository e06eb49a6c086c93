// A bundled example of the capabilities a caller grants: fetch from a local server, write and
// read a file in a workspace, read a secret. The README ("Capabilities") shows how to run it.
const res = await fetch(`${base}/hello.json`);
const data = await res.json();
const greeting = getSecret("GREETING");
await workspace.write("greeting.txt", `${greeting}, ${data.name} (from ${data.from})!`);
console.log(`fetched ${res.url} with status ${res.status}`);
return {
  status: res.status,
  wrote: await workspace.read("greeting.txt"),
  files: (await workspace.list()).map((e) => `${e.name} (${e.size} bytes)`),
  secrets: secrets.list(),
};
