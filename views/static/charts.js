/*
 * Draws every chart of a page with uPlot. A chart's data travels as JSON in a
 * <script type="application/json" data-chart="TARGET-ID"> element (never executed, so the CSP
 * holds): {"x": [epoch seconds...], "series": [{"label": "...", "values": [...]}, ...]}. Every
 * word a chart shows comes from the page, in its language: the series' labels in that JSON, the
 * time column's name in data-time-label (none of uPlot's English defaults).
 * Without JavaScript the page shows the same figures as tables.
 */
(function () {
  'use strict';
  var COLOURS = [
    { stroke: '#1f5fd1', fill: 'rgba(31, 95, 209, 0.12)' },
    { stroke: '#b42318', fill: 'rgba(180, 35, 24, 0.12)' },
    { stroke: '#7a4b00', fill: 'rgba(122, 75, 0, 0.10)' },
    { stroke: '#135c2a', fill: 'rgba(19, 92, 42, 0.10)' },
  ];
  var HEIGHT = 260;
  // Hit counts run to billions: "2.5B" reads at a glance where "2,500,000,000" crowds the axis.
  var COMPACT = new Intl.NumberFormat(document.documentElement.lang || undefined, { notation: 'compact', maximumFractionDigits: 1 });

  function hitLabels(plot, splits) {
    return splits.map(function (value) {
      return COMPACT.format(value);
    });
  }

  /*
   * The hit axis as wide as its longest label (plus ticks and gap), measured with the axis's
   * own font: a fixed width cuts a long label at the chart's left edge, and a cut count misreads.
   */
  function hitAxisSize(plot, values, axisIndex, cycle) {
    var axis = plot.axes[axisIndex];
    // uPlot sizes axes in up to three cycles; after the first, keep the size (its autosize example does the same).
    if (cycle > 1) return axis._size;
    var longest = (values || []).reduce(function (widest, label) {
      return label.length > widest.length ? label : widest;
    }, '');
    plot.ctx.font = axis.font[0];
    return Math.ceil(axis.ticks.size + axis.gap + plot.ctx.measureText(longest).width / window.devicePixelRatio) + 4;
  }

  /*
   * The time axis and the legend in the page's locale and the panel's time zone (data-locale,
   * data-time-zone, from the one formatter of the pages), not the browser's: "1 Dec, 14:00" on
   * the chart is then "1 Dec, 14:00" in the table and the e-mail. Plain `en` is written the
   * British way, as the pages write it.
   */
  function timeFormats(script) {
    var locale = script.getAttribute('data-locale') || 'en';
    var timeZone = script.getAttribute('data-time-zone') || 'UTC';
    var dateLocale = locale === 'en' ? 'en-GB' : locale;
    var day = new Intl.DateTimeFormat(dateLocale, { day: 'numeric', month: 'short', timeZone: timeZone });
    var hour = new Intl.DateTimeFormat(dateLocale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: timeZone });
    var full = new Intl.DateTimeFormat(dateLocale, {
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
      timeZone: timeZone,
      timeZoneName: 'short',
    });
    return {
      timeZone: timeZone,
      // Hours, with the day under the first one and under each midnight; days alone when the ticks are a day or more apart.
      axis: function (plot, splits, axisIndex, space, increment) {
        return splits.map(function (seconds, i) {
          var at = seconds * 1000;
          if (increment >= 86400) return day.format(at);
          var time = hour.format(at);
          return i === 0 || time === '00:00' ? time + '\n' + day.format(at) : time;
        });
      },
      legend: function (plot, seconds) {
        return seconds === null || seconds === undefined ? '–' : full.format(seconds * 1000);
      },
    };
  }

  /* The time scale; a website added this hour has one point: an hour either side, rather than uPlot's range of years. */
  function timeScale(x) {
    return x.length === 1 ? { time: true, auto: false, range: [x[0] - 3600, x[0] + 3600] } : { time: true };
  }

  function draw(script) {
    var target = document.getElementById(script.getAttribute('data-chart'));
    if (!target || typeof window.uPlot !== 'function') return;
    var data = JSON.parse(script.textContent || '{}');
    var times = timeFormats(script);
    var width = function () {
      return Math.max(260, target.clientWidth);
    };
    var series = [{ label: script.getAttribute('data-time-label') || '', value: times.legend }].concat(
      data.series.map(function (s, i) {
        var colour = COLOURS[i % COLOURS.length];
        return { label: s.label, stroke: colour.stroke, fill: colour.fill, width: 1.5 };
      }),
    );
    var columns = [data.x].concat(
      data.series.map(function (s) {
        return s.values;
      }),
    );
    var plot = new window.uPlot(
      {
        width: width(),
        height: HEIGHT,
        series: series,
        axes: [{ values: times.axis }, { values: hitLabels, size: hitAxisSize }],
        scales: { x: timeScale(data.x) },
        // Ticks fall on the panel zone's hours and midnights, not the browser's.
        tzDate: function (seconds) {
          return window.uPlot.tzDate(new Date(seconds * 1000), times.timeZone);
        },
      },
      columns,
      target,
    );
    target.classList.add('drawn');
    var pending = 0;
    window.addEventListener('resize', function () {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(function () {
        plot.setSize({ width: width(), height: HEIGHT });
      });
    });
  }

  var scripts = document.querySelectorAll('script[type="application/json"][data-chart]');
  for (var i = 0; i < scripts.length; i++) draw(scripts[i]);
})();
