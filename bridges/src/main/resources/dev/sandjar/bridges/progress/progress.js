// progress(percent, message?): fire-and-forget. The host checks the arguments, applies the rate
// limit and the per-run cap, and hands accepted reports to the caller's listener.
(host) => ({
  progress: (percent, message) => {
    host.call("report", percent, message);
  },
})
