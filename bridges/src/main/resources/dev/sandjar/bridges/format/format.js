// format.number/date/relativeTime/list: Intl-shaped formatting by the host's ICU, since QuickJS
// ships no Intl. All four return Promises, as in the reference sandbox; arguments are checked on
// the host, and every failure is a rejection.
(host) => {
  const { now } = Date;
  const dateGetTime = Date.prototype.getTime;
  const call = Function.prototype.call.bind(Function.prototype.call);
  // A Date crosses as its time value, so an invalid Date reaches the host as NaN and is refused
  // there as an invalid time, not mistaken for a missing argument.
  const time = (value) => {
    if (value === undefined) return now();
    if (value instanceof Date) {
      try {
        return call(dateGetTime, value);
      } catch {
        return value; // not a real Date: the host refuses it by type
      }
    }
    return value;
  };
  return {
    format: {
      number: async (value, locale, options) => host.call("number", value, locale, options),
      date: async (value, locale, options) => host.call("date", time(value), locale, options),
      relativeTime: async (value, unit, locale, options) =>
        host.call("relativeTime", value, unit, locale, options),
      list: async (items, locale, options) => host.call("list", items, locale, options),
    },
  };
}
