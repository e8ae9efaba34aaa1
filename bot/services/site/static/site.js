// Progressive: a session's time in the reader's own zone, in the club's style ("Thursday 5 November,
// 5:00 PM GMT+1"), unless one of the page's zones already shows it. The page reads fine without it.
// Only textContent is written (never HTML), and nothing is loaded from elsewhere.
(function () {
  "use strict";
  if (typeof Intl === "undefined" || !Intl.DateTimeFormat || !Intl.DateTimeFormat.prototype.formatToParts) return;
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "your time zone";
  function said(date, timeZone) {
    var options = {
      weekday: "long", day: "numeric", month: "long", hour: "numeric", minute: "2-digit", hour12: true,
      timeZoneName: "short"
    };
    if (timeZone) options.timeZone = timeZone;
    var part = {};
    new Intl.DateTimeFormat("en-US", options).formatToParts(date).forEach(function (p) { part[p.type] = p.value; });
    return {
      clock: part.weekday + part.day + part.hour + part.minute + part.dayPeriod,
      text: part.weekday + " " + part.day + " " + part.month + ", " + part.hour + ":" + part.minute + " " +
        part.dayPeriod + " " + part.timeZoneName
    };
  }
  var times = document.querySelectorAll("time[data-local-end]");
  for (var i = 0; i < times.length; i++) {
    var start = new Date(times[i].getAttribute("datetime"));
    var target = times[i].parentNode.querySelector(".local-time");
    if (isNaN(start.getTime()) || !target) continue;
    var mine = said(start);
    var shown = (times[i].getAttribute("data-zones") || "").split(" ").some(function (z) {
      try { return z && said(start, z).clock === mine.clock; } catch (e) { return false; }
    });
    if (shown) continue;
    target.textContent = "Your time (" + zone + "): " + mine.text;
    target.hidden = false;
  }
})();
