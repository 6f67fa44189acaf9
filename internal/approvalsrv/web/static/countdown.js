// Keeps every <time data-countdown> showing the time left until its datetime.
(function () {
  "use strict";
  function left(ms) {
    if (ms <= 0) return "expired";
    var s = Math.floor(ms / 1000), d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600),
      m = Math.floor(s % 3600 / 60), sec = s % 60;
    var parts = d ? [d + "d", h + "h", m + "m"] : h ? [h + "h", m + "m", sec + "s"] : [m + "m", sec + "s"];
    return parts.join(" ") + " left";
  }
  function tick() {
    document.querySelectorAll("time[data-countdown]").forEach(function (el) {
      var at = Date.parse(el.getAttribute("datetime"));
      if (!isNaN(at)) el.textContent = left(at - Date.now());
    });
  }
  tick();
  setInterval(tick, 1000);
})();
