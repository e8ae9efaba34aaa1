// Progressive: shows a session's time in the reader's own zone. The page reads fine without it.
// Only textContent is written (never HTML), and nothing is loaded from elsewhere.
(function () {
  "use strict";
  if (typeof Intl === "undefined" || !Intl.DateTimeFormat) return;
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "your time zone";
  var format = new Intl.DateTimeFormat(undefined, {
    weekday: "long", day: "numeric", month: "long", hour: "numeric", minute: "2-digit", timeZoneName: "short"
  });
  var times = document.querySelectorAll("time[data-local-end]");
  for (var i = 0; i < times.length; i++) {
    var start = new Date(times[i].getAttribute("datetime"));
    if (isNaN(start.getTime())) continue;
    var target = times[i].parentNode.querySelector(".local-time");
    if (!target) continue;
    target.textContent = "Your time (" + zone + "): " + format.format(start);
    target.hidden = false;
  }
})();
