'use strict';
// jfrbpf flame graph: an icicle graph (roots on top) of the call tree embedded as JSON in #profile-data.
// The data is a trie of stacks plus per-(thread, stack) sample counts per time bucket, so that thread and
// time filters only re-sum counts. Where data.measure names what the samples stand for ("off-CPU time",
// "allocated memory", "lock wait time"), the counts are that instead, in data.unit: nanoseconds or bytes.
// Boxes are drawn on a canvas (tens of thousands stay fast) and skipped below a pixel; the labelled ones are
// also listed in #frames, a visually hidden list for screen readers (and tests), with their position.
(function () {
  const data = JSON.parse(document.getElementById('profile-data').textContent);
  const KINDS = ['Interpreted', 'JIT compiled', 'Inlined', 'Native', 'Kernel', 'Unknown', 'Allocated class',
    'Lock class'];
  // hue, saturation per kind (FrameKind's order)
  const HUES = [[62, 58], [110, 50], [178, 50], [6, 62], [30, 85], [0, 0], [215, 60], [280, 45]];
  const ROW = 17;
  const MIN_WIDTH = 0.6;  // px; narrower boxes (and their children) are not drawn
  const TEXT_WIDTH = 24;  // px; narrower boxes get no label
  const FONT = '12px monospace';

  const nodeCount = data.nodes.length / 2 + 1;  // node 0 is the root ("all")
  const parent = new Int32Array(nodeCount);
  const frameOf = new Int32Array(nodeCount);
  const depth = new Int32Array(nodeCount);
  for (let i = 1; i < nodeCount; i++) {
    parent[i] = data.nodes[2 * i - 2];
    frameOf[i] = data.nodes[2 * i - 1];
    depth[i] = depth[parent[i]] + 1;
  }
  const frameName = (f) => data.names[data.frames[2 * f]];
  const frameKind = (f) => data.frames[2 * f + 1];
  const nodeName = (n) => (n === 0 ? 'all' : frameName(frameOf[n]));

  const children = Array.from({ length: nodeCount }, () => []);
  for (let i = 1; i < nodeCount; i++) children[parent[i]].push(i);
  for (const list of children) {
    list.sort((a, b) => {
      const an = nodeName(a), bn = nodeName(b);
      return an < bn ? -1 : an > bn ? 1 : frameKind(frameOf[a]) - frameKind(frameOf[b]);
    });
  }

  const groupCount = data.groups.length / 3;
  const times = data.times.map((deltas) => {  // [slotDelta, count, ...] -> [slot, count, ...]
    const out = new Float64Array(deltas.length);
    let slot = 0;
    for (let i = 0; i < deltas.length; i += 2) {
      slot += deltas[i];
      out[i] = slot;
      out[i + 1] = deltas[i + 1];
    }
    return out;
  });

  const state = { thread: -1, from: 0, to: data.buckets - 1, zoom: 0, search: null };
  let self = new Float64Array(nodeCount);
  let total = new Float64Array(nodeCount);
  let matched = new Uint8Array(data.frames.length / 2);

  const $ = (id) => document.getElementById(id);
  const graph = $('graph');
  const canvas = $('flame');
  const ctx = canvas.getContext('2d');
  const frameList = $('frames');
  const tooltip = $('tooltip');
  const timeline = $('timeline');
  const selection = $('selection');

  const fmt = (n) => Math.round(n).toLocaleString('en-US');
  const pct = (part, whole) => (whole > 0 ? (100 * part / whole).toFixed(2) : '0.00') + '%';
  const nanosPerSample = data.samples > 0 ? data.cpuNanos / data.samples : 0;
  const byTime = data.measure !== undefined;
  const valueName = byTime ? data.measure[0].toUpperCase() + data.measure.slice(1) : 'Samples';
  const value = (v) => (!byTime ? fmt(v) : data.unit === 'bytes' ? bytes(v) : seconds(v / 1e9));
  function seconds(s) {
    if (s >= 100) return s.toFixed(0) + ' s';
    if (s >= 1) return s.toFixed(2) + ' s';
    return (s * 1000).toFixed(s >= 0.01 ? 0 : 1) + ' ms';
  }
  function bytes(b) {  // decimal units, as the terminal views print them
    if (b < 1000) return fmt(b) + ' bytes';
    if (b < 1e6) return (b / 1e3).toFixed(1) + ' kB';
    if (b < 1e9) return (b / 1e6).toFixed(1) + ' MB';
    return (b / 1e9).toFixed(2) + ' GB';
  }
  function clock(ms) {
    const d = new Date(ms);
    const two = (v) => String(v).padStart(2, '0');
    return d.getFullYear() + '-' + two(d.getMonth() + 1) + '-' + two(d.getDate()) + ' ' +
      two(d.getHours()) + ':' + two(d.getMinutes()) + ':' + two(d.getSeconds());
  }

  function colour(node) {
    const f = frameOf[node];
    const [hue, sat] = HUES[frameKind(f)];
    let h = 0;
    const name = frameName(f);
    for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) | 0;
    const spread = ((h >>> 8) % 1000) / 1000;
    return 'hsl(' + (hue + spread * 14 - 7).toFixed(1) + ',' + sat + '%,' + (58 + spread * 18).toFixed(1) + '%)';
  }

  function sumTimes(g) {
    const t = times[g];
    let sum = 0;
    for (let i = 0; i < t.length; i += 2) {
      if (t[i] >= state.from && t[i] <= state.to) sum += t[i + 1];
    }
    return sum;
  }

  function computeTotals() {
    self = new Float64Array(nodeCount);
    const wholeRange = state.from === 0 && state.to === data.buckets - 1;
    for (let g = 0; g < groupCount; g++) {
      if (state.thread >= 0 && data.groups[3 * g] !== state.thread) continue;
      const w = wholeRange ? data.groups[3 * g + 2] : sumTimes(g);
      if (w > 0) self[data.groups[3 * g + 1]] += w;
    }
    total = Float64Array.from(self);
    for (let i = nodeCount - 1; i > 0; i--) total[parent[i]] += total[i];  // children come after parents
  }

  function computeMatches() {
    matched = new Uint8Array(data.frames.length / 2);
    if (!state.search) return;
    for (let f = 0; f < matched.length; f++) matched[f] = state.search.test(frameName(f)) ? 1 : 0;
  }

  // Samples under matching frames within the zoomed subtree, each sample counted once.
  function matchedTotal() {
    const inZoom = new Uint8Array(nodeCount);
    const covered = new Uint8Array(nodeCount);
    inZoom[state.zoom] = 1;
    let sum = 0;
    for (let i = 1; i < nodeCount; i++) {
      inZoom[i] = inZoom[i] || inZoom[parent[i]];
      const hit = matched[frameOf[i]] === 1;
      if (inZoom[i] && hit && !covered[parent[i]]) sum += total[i];
      covered[i] = covered[parent[i]] || (inZoom[i] && hit);
    }
    return sum;
  }

  // What the last render drew, for hit testing: per row, boxes in increasing x.
  let drawn = [];  // row -> [{x, w, node}]

  function label(name, width, charWidth) {
    const fit = Math.floor((width - 6) / charWidth);
    return name.length <= fit ? name : name.slice(0, Math.max(0, fit - 1)) + '\u2026';
  }

  function render() {
    const width = graph.clientWidth || 1000;
    const base = total[state.zoom];
    $('empty').hidden = base > 0;
    const path = [];
    for (let n = state.zoom; n !== 0; n = parent[n]) path.push(n);
    path.push(0);
    path.reverse();
    drawn = [];
    const place = (node, x, w, row, ancestor) => {
      (drawn[row] = drawn[row] || []).push({ x, w, node, ancestor });
    };
    for (let i = 0; i < path.length - 1; i++) place(path[i], 0, width, i, true);
    if (base > 0) {
      const pending = [[state.zoom, 0, path.length - 1]];  // depth first, leftmost child first
      while (pending.length) {
        const [node, x, row] = pending.pop();
        place(node, x, total[node] / base * width, row, false);
        const list = children[node];
        let cx = x + total[node] / base * width;
        for (let i = list.length - 1; i >= 0; i--) {
          const cw = total[list[i]] / base * width;
          cx -= cw;
          if (cw >= MIN_WIDTH) pending.push([list[i], cx, row + 1]);
        }
      }
    }

    const height = drawn.length * ROW + 2;
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = width + 'px';
    canvas.style.height = height + 'px';
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    const charWidth = ctx.measureText('m').width || 7;
    const items = document.createDocumentFragment();
    drawn.forEach((boxes, row) => {
      for (const b of boxes) {
        const y = row * ROW;
        const hit = b.node !== 0 && matched[frameOf[b.node]];
        ctx.globalAlpha = b.ancestor ? 0.55 : 1;
        ctx.fillStyle = hit ? '#e040e0' : b.node === 0 ? '#d8d8d8' : colour(b.node);
        ctx.fillRect(b.x, y, Math.max(b.w - 1, 0.5), ROW - 1);
        if (b.w >= TEXT_WIDTH) {
          const name = nodeName(b.node);
          ctx.fillStyle = hit ? '#fff' : '#000';
          ctx.fillText(label(name, b.w, charWidth), b.x + 3, y + ROW / 2);
          const item = document.createElement('li');
          item.textContent = name;
          item.dataset.n = b.node;
          item.dataset.x = b.x.toFixed(1);
          item.dataset.y = y;
          item.dataset.w = b.w.toFixed(1);
          items.appendChild(item);
        }
      }
    });
    ctx.globalAlpha = 1;
    frameList.replaceChildren(items);
    $('matched').textContent = state.search ? 'Matched: ' + pct(matchedTotal(), base) : '';
  }

  function nodeAt(e) {
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left, row = Math.floor((e.clientY - r.top) / ROW);
    const boxes = drawn[row];
    if (!boxes) return -1;
    let lo = 0, hi = boxes.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (x < boxes[mid].x) hi = mid - 1;
      else if (x >= boxes[mid].x + boxes[mid].w) lo = mid + 1;
      else return boxes[mid].node;
    }
    return -1;
  }

  function update() {
    computeTotals();
    render();
    drawTimeline();
  }

  // --- header, thread list, legend ---
  $('info').textContent = [
    data.event || 'no sample events',
    fmt(data.samples) + ' samples',
    byTime ? value(data.cpuNanos) + ' of ' + data.measure
      : data.cpuKnown ? seconds(data.cpuNanos / 1e9) + ' of CPU time' : null,
    data.threads.length + (data.threads.length === 1 ? ' thread' : ' threads'),
    data.start ? clock(data.start) + ' + ' + seconds(data.duration / 1000) : null,
  ].filter(Boolean).join(' \u00b7 ');

  const threadTotals = new Float64Array(data.threads.length);
  for (let g = 0; g < groupCount; g++) threadTotals[data.groups[3 * g]] += data.groups[3 * g + 2];
  const threadSelect = $('thread');
  threadSelect.add(new Option('All threads (' + data.threads.length + ')', '-1'));
  data.threads.map((t, i) => i).sort((a, b) => threadTotals[b] - threadTotals[a]).forEach((i) => {
    const [name, tid] = data.threads[i];
    const amount = byTime ? value(threadTotals[i]) : fmt(threadTotals[i]) + ' samples';
    threadSelect.add(new Option(name + ' (tid ' + tid + ') \u2014 ' + amount, String(i)));
  });

  const kindsPresent = new Set();
  for (let f = 0; f < data.frames.length / 2; f++) kindsPresent.add(frameKind(f));
  for (let k = 0; k < KINDS.length; k++) {
    if (!kindsPresent.has(k)) continue;
    const item = document.createElement('span');
    const swatch = document.createElement('i');
    swatch.style.background = 'hsl(' + HUES[k][0] + ',' + HUES[k][1] + '%,65%)';
    item.append(swatch, KINDS[k]);
    $('legend').appendChild(item);
  }

  // --- timeline: samples per bucket over the whole recording; drag to select a range ---
  const bucketTotals = new Float64Array(data.buckets);
  function drawTimeline() {
    bucketTotals.fill(0);
    for (let g = 0; g < groupCount; g++) {
      if (state.thread >= 0 && data.groups[3 * g] !== state.thread) continue;
      const t = times[g];
      for (let i = 0; i < t.length; i += 2) bucketTotals[t[i]] += t[i + 1];
    }
    const max = Math.max(1, ...bucketTotals);
    const bars = timeline.querySelectorAll('.bar');
    for (let b = 0; b < data.buckets; b++) {
      bars[b].style.height = (100 * bucketTotals[b] / max).toFixed(1) + '%';
      bars[b].classList.toggle('out', b < state.from || b > state.to);
    }
    const whole = state.from === 0 && state.to === data.buckets - 1;
    const fromS = state.from * data.bucketMs / 1000, toS = (state.to + 1) * data.bucketMs / 1000;
    $('range').textContent = whole ? 'whole recording' : seconds(fromS) + ' \u2013 ' + seconds(toS);
  }
  for (let b = 0; b < data.buckets; b++) {
    const bar = document.createElement('div');
    bar.className = 'bar';
    timeline.appendChild(bar);
  }
  $('axis-start').textContent = '0 s';
  $('axis-end').textContent = seconds(data.buckets * data.bucketMs / 1000);

  function bucketAt(clientX) {
    const r = timeline.getBoundingClientRect();
    const b = Math.floor((clientX - r.left) / r.width * data.buckets);
    return Math.min(data.buckets - 1, Math.max(0, b));
  }
  function showSelection(a, b) {
    const w = timeline.clientWidth;
    selection.style.display = 'block';
    selection.style.left = (Math.min(a, b) / data.buckets * w) + 'px';
    selection.style.width = ((Math.abs(b - a) + 1) / data.buckets * w) + 'px';
  }
  let dragFrom = -1;
  timeline.addEventListener('mousedown', (e) => {
    dragFrom = bucketAt(e.clientX);
    showSelection(dragFrom, dragFrom);
    e.preventDefault();
  });
  window.addEventListener('mousemove', (e) => {
    if (dragFrom >= 0) showSelection(dragFrom, bucketAt(e.clientX));
  });
  window.addEventListener('mouseup', (e) => {
    if (dragFrom < 0) return;
    const to = bucketAt(e.clientX);
    state.from = Math.min(dragFrom, to);
    state.to = Math.max(dragFrom, to);
    dragFrom = -1;
    state.zoom = 0;
    update();
  });

  // --- interaction ---
  threadSelect.addEventListener('change', () => {
    state.thread = Number(threadSelect.value);
    state.zoom = 0;
    update();
  });
  $('search').addEventListener('input', (e) => {
    const text = e.target.value;
    if (!text) {
      state.search = null;
    } else {
      try {
        state.search = new RegExp(text);
      } catch (err) {
        state.search = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      }
    }
    computeMatches();
    render();
  });
  function reset() {
    state.thread = -1;
    state.from = 0;
    state.to = data.buckets - 1;
    state.zoom = 0;
    state.search = null;
    threadSelect.value = '-1';
    $('search').value = '';
    selection.style.display = 'none';
    computeMatches();
    update();
  }
  $('reset').addEventListener('click', reset);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') reset();
  });
  canvas.addEventListener('click', (e) => {
    const node = nodeAt(e);
    if (node < 0) return;
    state.zoom = node;
    render();
  });
  canvas.addEventListener('mousemove', (e) => {
    const node = nodeAt(e);
    canvas.style.cursor = node < 0 ? 'default' : 'pointer';
    if (node < 0) {
      tooltip.hidden = true;
      return;
    }
    const lines = [nodeName(node)];
    if (node !== 0) lines.push('Type: ' + KINDS[frameKind(frameOf[node])]);
    lines.push(valueName + ': ' + value(total[node]) + ' (' + pct(total[node], total[0]) + ' of shown)');
    if (node !== 0 && self[node] > 0) lines.push('Self: ' + value(self[node]) + ' (' + pct(self[node], total[0]) + ')');
    if (data.cpuKnown && !byTime) lines.push('CPU time: \u2248' + seconds(total[node] * nanosPerSample / 1e9));
    tooltip.textContent = lines.join('\n');
    tooltip.hidden = false;
    const x = Math.min(e.clientX + 12, window.innerWidth - tooltip.offsetWidth - 4);
    const below = e.clientY + 16 + tooltip.offsetHeight <= window.innerHeight;
    const y = below ? e.clientY + 16 : e.clientY - tooltip.offsetHeight - 8;
    tooltip.style.left = Math.max(0, x) + 'px';
    tooltip.style.top = Math.max(0, y) + 'px';
  });
  canvas.addEventListener('mouseleave', () => { tooltip.hidden = true; });
  window.addEventListener('resize', render);

  update();
})();
