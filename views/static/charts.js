/*
 * Draws every chart of a page with uPlot. A chart's data travels as JSON in a
 * <script type="application/json" data-chart="TARGET-ID"> element (never executed, so the CSP
 * holds): {"x": [epoch seconds...], "series": [{"label": "...", "values": [...]}, ...]}.
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

  function draw(script) {
    var target = document.getElementById(script.getAttribute('data-chart'));
    if (!target || typeof window.uPlot !== 'function') return;
    var data = JSON.parse(script.textContent || '{}');
    var width = function () {
      return Math.max(260, target.clientWidth);
    };
    var series = [{}].concat(
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
    var plot = new window.uPlot({ width: width(), height: HEIGHT, series: series, axes: [{}, { values: hitLabels, size: hitAxisSize }], scales: { x: { time: true } } }, columns, target);
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
