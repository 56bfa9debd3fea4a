// The reports' only script, as text: html.ts inlines it in every page and admits it by
// hash. Kept as a TypeScript string (String.raw: backslashes stay as written) so that it
// travels with the module however the package is built or bundled.
// It must contain no backquote and no dollar-brace (it is a template literal).

export const PAGE_SCRIPT = String.raw`// The reports' only script (html.ts inlines it and admits it by hash). Values from a
// history or a state arrive escaped in attributes and are read back with getAttribute and
// written with textContent or setAttribute: nothing is ever parsed as markup.
//
// Timelines (div.tl[data-timeline]) are drawn here from their data, viewport-sized:
// only what is in view is in the DOM, so a long history opens as fast as a short one.
// Time is drawn by rank (each distinct endpoint is one column, as Porcupine does); the
// axis shows the recorded times. Zoom changes the column width; pan is scrolling (or
// dragging). Lanes are ordered by activity; lanes with nothing in view fold into one line.
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';

  // Hover: an element's data-detail in the tooltip.
  var tip = document.getElementById('tooltip');
  document.addEventListener('mouseover', function (e) {
    var el = e.target.closest ? e.target.closest('[data-detail]') : null;
    if (!el) { tip.style.display = 'none'; return; }
    tip.textContent = el.getAttribute('data-detail');
    tip.style.display = 'block';
  });
  document.addEventListener('mousemove', function (e) {
    tip.style.left = Math.min(e.clientX + 14, window.innerWidth - 420) + 'px';
    tip.style.top = (e.clientY + 14) + 'px';
  });

  // Step lists: clicking a step shows the state after it.
  function selectStep(n) {
    document.querySelectorAll('[data-step]').forEach(function (x) { x.classList.toggle('selected', x.getAttribute('data-step') === n); });
    document.querySelectorAll('[data-state]').forEach(function (x) { x.hidden = x.getAttribute('data-state') !== n; });
  }
  document.addEventListener('click', function (e) {
    var li = e.target.closest ? e.target.closest('[data-step]') : null;
    if (li) selectStep(li.getAttribute('data-step'));
  });
  // Ghost (monitor) fields: hidden unless asked.
  document.querySelectorAll('input[data-toggle-class]').forEach(function (box) {
    var apply = function () { document.body.classList.toggle(box.getAttribute('data-toggle-class'), box.checked); };
    box.addEventListener('change', apply);
    apply();
  });

  // ---------------------------------------------------------------------------------
  // Timelines.
  var AXIS = 18, FLAGS = 16, TOP = AXIS + FLAGS + 4, LEFT = 110, BAR = 18, TRACK = 12, GAP = 5;

  function el(name, attrs, text) {
    var n = document.createElementNS(SVG, name);
    for (var k in attrs) n.setAttribute(k, String(attrs[k]));
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function fmtTime(t) {
    var a = Math.abs(t);
    if (a >= 1e10) return (t / 1e9).toFixed(2).replace(/\.?0+$/, '') + 'G';
    if (a >= 1e7) return (t / 1e6).toFixed(2).replace(/\.?0+$/, '') + 'M';
    if (a >= 1e5) return (t / 1e3).toFixed(1).replace(/\.?0+$/, '') + 'k';
    return String(t);
  }

  function Timeline(root) {
    var d = JSON.parse(root.getAttribute('data-timeline'));
    this.root = root;
    this.d = d;
    // ops: [lane, call, ret (-1: never), label, detail, class, point (-1), order (0)]
    var ops = d.ops, lanes = d.lanes, n = ops.length;
    this.hasPoints = ops.some(function (o) { return o[6] >= 0; });
    this.rowH = BAR + (this.hasPoints ? TRACK : 0) + GAP;
    // Rows inside a lane: an operation that never returned runs to the end, and its client
    // may call again, so bars are packed into rows that never overlap.
    var rowEnds = lanes.map(function () { return []; });
    this.row = new Array(n);
    var order = ops.map(function (_, i) { return i; }).sort(function (a, b) { return ops[a][1] - ops[b][1] || a - b; });
    var end = d.end;
    for (var j = 0; j < n; j++) {
      var i = order[j], o = ops[i], ends = rowEnds[o[0]];
      var stop = o[2] >= 0 ? o[2] : end;
      var r = 0;
      while (r < ends.length && ends[r] >= o[1]) r++;
      ends[r] = stop;
      this.row[i] = r;
    }
    this.rows = rowEnds.map(function (e) { return Math.max(1, e.length); });
    this.byLane = lanes.map(function () { return []; });
    for (var k = 0; k < n; k++) this.byLane[ops[k][0]].push(k);
    this.col = d.col || 30;
    this.allLanes = false;

    root.textContent = '';
    var bar = document.createElement('div');
    bar.className = 'tl-controls';
    var self = this;
    function button(label, title, fn) {
      var b = document.createElement('button');
      b.type = 'button';
      b.textContent = label;
      b.title = title;
      b.addEventListener('click', fn);
      bar.appendChild(b);
      return b;
    }
    button('−', 'zoom out (or ctrl + wheel)', function () { self.zoom(1 / 1.6); });
    button('+', 'zoom in (or ctrl + wheel)', function () { self.zoom(1.6); });
    button('fit', 'the whole timeline in view', function () { self.fit(); });
    if (d.focus >= 0) button('failure', 'back to the failure', function () { self.show(d.focus); });
    var lab = document.createElement('label');
    var box = document.createElement('input');
    box.type = 'checkbox';
    box.addEventListener('change', function () { self.allLanes = box.checked; self.draw(); });
    lab.appendChild(box);
    lab.appendChild(document.createTextNode(' all lanes'));
    bar.appendChild(lab);
    this.idle = document.createElement('span');
    this.idle.className = 'note tl-idle';
    bar.appendChild(this.idle);
    root.appendChild(bar);

    this.scroller = document.createElement('div');
    this.scroller.className = 'tl-scroll';
    this.spacer = document.createElement('div');
    this.spacer.className = 'tl-spacer';
    this.svg = el('svg', { class: 'timeline' });
    this.scroller.appendChild(this.svg);
    this.scroller.appendChild(this.spacer);
    root.appendChild(this.scroller);

    var pending = false;
    this.scroller.addEventListener('scroll', function () {
      if (pending) return;
      pending = true;
      requestAnimationFrame(function () { pending = false; self.draw(); });
    });
    this.scroller.addEventListener('wheel', function (e) {
      if (!e.ctrlKey) return;
      e.preventDefault();
      var r = self.scroller.getBoundingClientRect();
      self.zoom(e.deltaY < 0 ? 1.25 : 0.8, e.clientX - r.left);
    }, { passive: false });
    var drag = null;
    this.scroller.addEventListener('mousedown', function (e) {
      drag = { x: e.clientX, y: e.clientY, l: self.scroller.scrollLeft, t: self.scroller.scrollTop };
    });
    window.addEventListener('mousemove', function (e) {
      if (!drag || !(e.buttons & 1)) { drag = null; return; }
      self.scroller.scrollLeft = drag.l - (e.clientX - drag.x);
      self.scroller.scrollTop = drag.t - (e.clientY - drag.y);
    });
    window.addEventListener('mouseup', function () { drag = null; });

    var ch = el('text', { class: 'label', x: 0, y: 0 }, '0123456789');
    this.svg.appendChild(ch);
    this.charW = Math.max(4, ch.getComputedTextLength() / 10 || 6.6);
    this.svg.removeChild(ch);

    this.layout();
    // As tall as every lane needs, up to most of the window.
    var bars = this.scroller.offsetHeight - this.scroller.clientHeight;
    this.scroller.style.height = Math.min(this.height + bars + 20, Math.min(window.innerHeight * 0.6, 560)) + 'px';
    if (d.open >= 0) this.show(d.open);
    else this.draw();
  }

  Timeline.prototype.x = function (rank) { return LEFT + rank * this.col; };

  // Lanes shown, in activity order (the data's order), with their y in the spacer; lanes
  // with no operation in [r0, r1] fold away unless every lane is asked for.
  Timeline.prototype.layout = function (r0, r1) {
    var d = this.d, ops = d.ops, y = TOP, shown = [], idle = [];
    for (var l = 0; l < d.lanes.length; l++) {
      var busy = this.allLanes || r0 === undefined || this.byLane[l].some(function (i) {
        var o = ops[i];
        return o[1] <= r1 && (o[2] < 0 ? d.end : o[2]) >= r0;
      });
      if (busy) { shown.push({ lane: l, y: y }); y += this.rows[l] * this.rowH; }
      else idle.push(d.lanes[l]);
    }
    this.shown = shown;
    this.laneY = {};
    for (var s = 0; s < shown.length; s++) this.laneY[shown[s].lane] = shown[s].y;
    this.height = y + 4;
    this.idle.textContent = idle.length ? ' ' + idle.length + ' lane' + (idle.length === 1 ? '' : 's') + ' idle in view, folded: ' + idle.slice(0, 12).join(', ') + (idle.length > 12 ? ', …' : '') : '';
    this.spacer.style.width = (this.x(d.end + 1) + 20) + 'px';
    this.spacer.style.height = this.height + 'px';
  };

  Timeline.prototype.zoom = function (factor, at) {
    var sc = this.scroller, w = sc.clientWidth;
    if (at === undefined) at = w / 2;
    var rank = (sc.scrollLeft + at - LEFT) / this.col;
    this.col = Math.max(0.5, Math.min(120, this.col * factor));
    this.layout();
    sc.scrollLeft = Math.max(0, LEFT + rank * this.col - at);
    this.draw();
  };

  Timeline.prototype.fit = function () {
    var w = this.scroller.clientWidth - LEFT - 30;
    this.col = Math.max(0.5, Math.min(120, w / (this.d.end + 1)));
    this.layout();
    this.scroller.scrollLeft = 0;
    this.draw();
  };

  // Brings operation i into view (a third from the left) and draws.
  Timeline.prototype.show = function (i) {
    var o = this.d.ops[i], sc = this.scroller, w = sc.clientWidth;
    this.layout();
    sc.scrollLeft = Math.max(0, this.x(o[1]) - LEFT - Math.max(0, (w - LEFT) / 3));
    var r0 = (sc.scrollLeft) / this.col, r1 = r0 + (w - LEFT) / this.col;
    this.layout(r0, r1);
    var y = this.laneY[o[0]] + this.row[i] * this.rowH;
    sc.scrollTop = Math.max(0, y - TOP - (sc.clientHeight - TOP) / 3);
    this.draw(true);
  };

  Timeline.prototype.draw = function (keepLayout) {
    var d = this.d, ops = d.ops, sc = this.scroller, svg = this.svg, self = this;
    var w = sc.clientWidth, h = sc.clientHeight, sl = sc.scrollLeft, st = sc.scrollTop;
    var r0 = sl / this.col - 1, r1 = r0 + (w - LEFT) / this.col + 2;
    if (!keepLayout) this.layout(r0, r1);
    svg.setAttribute('width', w);
    svg.setAttribute('height', h);
    this.spacer.style.marginTop = -h + 'px';
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var X = function (rank) { return self.x(rank) - sl; };
    var bottom = h;

    // Fault windows, behind everything.
    var flags = [];
    d.marks.forEach(function (m) {
      var x1 = Math.max(LEFT, X(m[0])), x2 = Math.min(w, m[1] < 0 ? X(m[0]) + 3 : X(m[1]) + self.col);
      if (x2 < LEFT || x1 > w) return;
      var g = el('g', { class: 'mark', 'data-detail': m[3] });
      g.appendChild(el('rect', { x: x1, y: AXIS, width: Math.max(3, x2 - x1), height: bottom - AXIS }));
      svg.appendChild(g);
      flags.push({ x: x1, text: m[2], cls: 'mark-label', detail: m[3] });
    });

    // Lanes: names on the left, a rule under each.
    var chosen = this.shown;
    var lanesG = el('g', {});
    chosen.forEach(function (s) {
      var y = s.y - st;
      if (y < TOP || y > bottom) return;
      var name = d.lanes[s.lane];
      var max = Math.floor((LEFT - 10) / self.charW);
      var t = el('text', { class: 'lane', x: 4, y: y + 13 }, name.length > max ? name.slice(0, max - 1) + '…' : name);
      var g = el('g', { 'data-detail': name });
      g.appendChild(t);
      lanesG.appendChild(g);
      var ly = y + self.rows[s.lane] * self.rowH - 2;
      if (ly < bottom) lanesG.appendChild(el('line', { class: 'lane-line', x1: 0, x2: w, y1: ly, y2: ly }));
    });
    svg.appendChild(lanesG);

    // Bars in view, their labels cut to fit, linearization points on a track under them.
    var tracks = {};
    var vis = [];
    for (var i = 0; i < ops.length; i++) {
      var o = ops[i], ly = this.laneY[o[0]];
      if (ly === undefined) continue;
      var stop = o[2] >= 0 ? o[2] : d.end;
      if (stop < r0 || o[1] > r1) continue;
      var y = ly + this.row[i] * this.rowH - st;
      if (y < TOP || y + BAR > bottom) continue;
      vis.push(i);
    }
    vis.sort(function (a, b) { return ops[a][6] - ops[b][6]; });
    vis.forEach(function (i) {
      var o = ops[i], y = self.laneY[o[0]] + self.row[i] * self.rowH - st;
      var stop = o[2] >= 0 ? o[2] : d.end;
      var x1 = X(o[1]), x2 = X(stop) + self.col - Math.min(4, self.col / 4);
      var cx1 = Math.max(LEFT, x1), cx2 = Math.min(w + 5, x2);
      var cls = 'bar' + (o[5] ? ' ' + o[5] : '') + (o[2] < 0 ? ' pending' : '') + (i === d.focus ? ' failure' : '');
      var g = el('g', { class: cls, 'data-op': i, 'data-detail': o[4] });
      g.appendChild(el('rect', { x: cx1, y: y, width: Math.max(2, cx2 - cx1), height: BAR, rx: 3 }));
      var room = Math.floor((cx2 - cx1 - 6) / self.charW);
      if (room >= 2) {
        var label = o[3].length > room ? o[3].slice(0, room - 1) + '…' : o[3];
        g.appendChild(el('text', { class: 'label', x: cx1 + 3, y: y + 13 }, label));
      }
      if (o[6] >= 0) {
        var px = X(o[6]) + self.col / 2, py = y + BAR + TRACK / 2;
        if (px >= LEFT && px <= w) {
          g.appendChild(el('circle', { class: 'point', cx: px, cy: py, r: 3 }));
          var key = o[0] + ':' + self.row[i];
          (tracks[key] = tracks[key] || []).push({ x: px, y: py, g: g, n: o[7] });
        }
      }
      svg.appendChild(g);
      if (i === d.focus) flags.unshift({ x: cx1, text: d.focusLabel, cls: 'failure-flag', detail: o[4] });
    });
    // Numbers beside the points, where they fit before the next point of their track.
    Object.keys(tracks).forEach(function (key) {
      var t = tracks[key].sort(function (a, b) { return a.x - b.x; }), free = -Infinity;
      for (var k = 0; k < t.length; k++) {
        var text = String(t[k].n), tw = text.length * self.charW * 0.85 + 2;
        var next = k + 1 < t.length ? t[k + 1].x - 5 : w;
        if (t[k].n > 0 && t[k].x - 4 > free && t[k].x + 5 + tw < next) {
          t[k].g.appendChild(el('text', { class: 'order', x: t[k].x + 5, y: t[k].y + 4 }, text));
          free = t[k].x + 5 + tw;
        }
      }
    });

    // The axis: recorded times at columns far enough apart for their labels.
    var axis = el('g', { class: 'axis' });
    axis.appendChild(el('rect', { class: 'axis-bg', x: 0, y: 0, width: w, height: TOP - 2 }));
    var step = Math.max(1, Math.ceil((10 * self.charW + 16) / this.col));
    var first = Math.max(0, Math.ceil(r0 / step) * step), lastX = -Infinity;
    for (var r = first; r <= Math.min(r1, d.times.length - 1); r += step) {
      var tx = X(r) + self.col / 2;
      if (tx < LEFT || tx > w - 10) continue;
      axis.appendChild(el('line', { x1: tx, x2: tx, y1: AXIS - 4, y2: AXIS }));
      var label = fmtTime(d.times[r]);
      var lw = label.length * self.charW;
      if (tx - lw / 2 > lastX + 6 && tx + lw / 2 < w) {
        axis.appendChild(el('text', { x: tx - lw / 2, y: AXIS - 6 }, label));
        lastX = tx + lw / 2;
      }
    }
    axis.appendChild(el('text', { class: 'unit', x: 4, y: AXIS - 6 }, d.unit));
    svg.appendChild(axis);

    // Flags over the axis: the failure first, then fault windows, never over each other.
    var taken = [];
    flags.forEach(function (f) {
      var fw = f.text.length * self.charW * 0.9 + 4, fx = Math.max(LEFT, Math.min(f.x, w - fw));
      if (taken.some(function (t) { return fx < t[1] + 4 && fx + fw > t[0] - 4; })) return;
      taken.push([fx, fx + fw]);
      var g = el('g', { class: f.cls, 'data-detail': f.detail });
      g.appendChild(el('text', { x: fx, y: AXIS + FLAGS - 3 }, f.text));
      svg.appendChild(g);
    });
  };

  document.querySelectorAll('div.tl[data-timeline]').forEach(function (root) {
    root.timeline = new Timeline(root);
  });
})();
`;
