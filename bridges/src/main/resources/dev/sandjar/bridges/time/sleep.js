// sleep(ms): the run's only timer. The host checks ms and waits on its own timer, so a sleeping
// run spends no CPU budget and a cancelled run stops sleeping at once.
(host) => ({
  sleep: (ms) => host.call("sleep", ms),
})
