// throng view: replays a throng trace (docs/trace-format.md) in a canvas. Self-contained: no
// library, no network but the page's own server (GET trace, about, and headings when robots
// turn: see src/view/replay.rs for that stream).
'use strict';


const KEYFRAME_EVERY = 16;
const COLOURS = {
  floor: [236, 238, 241],
  wall: [52, 58, 66],
  moving: [31, 111, 235], // agents on their way (group 0)
  arrived: [45, 164, 78], // agents standing on their goal
  selected: [230, 40, 40],
};
// The notch on the side a robot faces, and the headings' names (0 east, 1 south, 2 west, 3 north).
const NOTCH = '#15191e';
const HEADING_NAMES = ['east', 'south', 'west', 'north'];
const HEADING_DX = [1, 0, -1, 0];
const HEADING_DY = [0, 1, 0, -1];
// Crowd colours by group (group 0 is the moving colour).
const GROUPS = [
  [31, 111, 235], [218, 112, 22], [137, 87, 229], [0, 150, 160],
  [200, 60, 140], [120, 140, 20], [90, 90, 200], [170, 100, 60],
];
// Cell offsets of the moves 1..8 of a move byte are computed from the width (N E S W NE SE SW NW).
const DX = [0, 1, 0, -1, 1, 1, -1, -1];
const DY = [-1, 0, 1, 0, -1, 1, 1, -1];

class TraceError extends Error {}

class Bytes {
  constructor(u8, pos) { this.b = u8; this.pos = pos || 0; }
  u8() {
    if (this.pos >= this.b.length) throw new TraceError('trace ends early at byte ' + this.pos);
    return this.b[this.pos++];
  }
  varint() {
    let v = 0, mul = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.u8();
      v += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return v;
      mul *= 128;
    }
    throw new TraceError('bad number at byte ' + this.pos);
  }
}

async function loadTrace(url) {
  const response = await fetch(url);
  if (!response.ok) throw new TraceError('GET ' + url + ': ' + response.status);
  const file = new Uint8Array(await response.arrayBuffer());
  const magic = String.fromCharCode(...file.subarray(0, 8));
  if (magic !== 'THRTRACE') throw new TraceError('not a throng trace');
  const version = file[8] | (file[9] << 8);
  const flags = file[10] | (file[11] << 8);
  if (version !== 1) throw new TraceError('trace version ' + version + ' (this page reads 1)');
  let body = file.subarray(12);
  if (flags & 1) {
    const stream = new Blob([body]).stream().pipeThrough(new DecompressionStream('deflate'));
    body = new Uint8Array(await new Response(stream).arrayBuffer());
  }
  return parseTrace(body);
}

/** The replayed state: live agents (numbers, cells, goals) and the map. */
class State {
  constructor(cap) {
    this.ids = new Int32Array(cap);
    this.cells = new Int32Array(cap);
    this.goals = new Int32Array(cap);
    this.count = 0;
    this.walkable = null;
    this.mapVersion = 0;
  }
  grow() {
    const cap = this.ids.length * 2 + 16;
    for (const k of ['ids', 'cells', 'goals']) {
      const a = new Int32Array(cap);
      a.set(this[k]);
      this[k] = a;
    }
  }
  push(id, cell, goal) {
    if (this.count === this.ids.length) this.grow();
    this.ids[this.count] = id;
    this.cells[this.count] = cell;
    this.goals[this.count] = goal;
    this.count++;
  }
  removeId(id) {
    let lo = 0, hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.ids[mid] === id) {
        for (const a of [this.ids, this.cells, this.goals]) a.copyWithin(mid, mid + 1, this.count);
        this.count--;
        return;
      }
      if (this.ids[mid] < id) lo = mid + 1; else hi = mid - 1;
    }
    throw new TraceError('agent ' + id + ' removed but not live');
  }
  snapshot() {
    this.walkableShared = true; // the keyframe keeps this array: copy before the next edit
    return {
      ids: this.ids.slice(0, this.count),
      cells: this.cells.slice(0, this.count),
      goals: this.goals.slice(0, this.count),
      walkable: this.walkable,
      mapVersion: this.mapVersion,
      nextId: this.nextId,
    };
  }
  restore(k) {
    this.count = 0;
    while (this.ids.length < k.ids.length) this.grow();
    this.ids.set(k.ids);
    this.cells.set(k.cells);
    this.goals.set(k.goals);
    this.count = k.ids.length;
    this.walkable = k.walkable;
    this.mapVersion = k.mapVersion;
    this.nextId = k.nextId;
  }
}

function parseTrace(body) {
  const r = new Bytes(body);
  const width = r.varint(), height = r.varint();
  const neighbourhood = r.u8();
  const cells = width * height;
  const walkable = new Uint8Array(cells);
  for (let i = 0; i < cells; i++) walkable[i] = (body[r.pos + (i >> 3)] >> (i & 7)) & 1;
  r.pos += Math.ceil(cells / 8);
  const count = r.varint();
  const trace = {
    body, width, height, neighbourhood, cells, initialWalkable: walkable,
    groups: [], tickStart: [], tickEnd: [], keyframes: [], liveCounts: [],
    visits: new Uint32Array(cells), waits: new Uint32Array(cells), hasGroups: false,
  };
  const state = new State(Math.max(16, count));
  state.walkable = walkable;
  state.nextId = 0;
  for (let i = 0; i < count; i++) {
    const cell = r.varint(), goal = r.varint() - 1, group = r.varint() - 1;
    trace.groups.push(group);
    if (group >= 0) trace.hasGroups = true;
    state.push(state.nextId++, cell, goal);
  }
  trace.liveCounts.push(state.count);
  trace.keyframes.push(state.snapshot());
  countHeat(trace, state, null);
  // Index every tick record, replaying to make keyframes and the heatmaps.
  for (;;) {
    const tag = r.u8();
    const len = r.varint();
    if (tag === 0x45) break; // 'E'
    if (tag !== 0x54) throw new TraceError('unknown record at byte ' + (r.pos - 2));
    const k = trace.tickStart.length;
    trace.tickStart.push(r.pos);
    trace.tickEnd.push(r.pos + len);
    r.pos += len;
    const waited = applyTick(trace, state, k, true);
    trace.liveCounts.push(state.count);
    countHeat(trace, state, waited);
    if ((k + 1) % KEYFRAME_EVERY === 0) trace.keyframes.push(state.snapshot());
  }
  trace.ticks = trace.tickStart.length;
  return trace;
}

function countHeat(trace, state, waited) {
  const v = trace.visits, w = trace.waits;
  for (let i = 0; i < state.count; i++) {
    const c = state.cells[i];
    v[c]++;
    if (waited && waited[i]) w[c]++;
  }
}

let waitedScratch = new Uint8Array(0);

/** Applies tick record k to state; returns, when asked, a flag per live agent: it waited. */
function applyTick(trace, state, k, wantWaits) {
  const b = trace.body;
  const r = new Bytes(b, trace.tickStart[k]);
  const w = trace.width;
  const events = r.varint();
  const startNext = state.nextId;
  for (let e = 0; e < events; e++) {
    const tag = r.u8();
    if (tag === 1 || tag === 2) {
      const cell = r.varint();
      if (state.walkable === trace.initialWalkable || state.walkableShared) {
        state.walkable = state.walkable.slice();
        state.walkableShared = false;
      }
      state.walkable[cell] = tag === 1 ? 1 : 0;
      state.mapVersion++;
    } else if (tag === 3) {
      const cell = r.varint(), goal = r.varint() - 1, group = r.varint() - 1;
      trace.groups[state.nextId] = group;
      if (group >= 0) trace.hasGroups = true;
      state.push(state.nextId++, cell, goal);
    } else if (tag === 4) {
      state.removeId(r.varint());
    } else {
      throw new TraceError('unknown event ' + tag + ' in tick ' + k);
    }
  }
  let movers = state.count;
  while (movers > 0 && state.ids[movers - 1] >= startNext) movers--;
  if (wantWaits) {
    if (waitedScratch.length < state.count) waitedScratch = new Uint8Array(state.count * 2);
    waitedScratch.fill(0, 0, state.count);
  }
  const offsets = [0];
  for (let d = 0; d < 8; d++) offsets.push(DY[d] * w + DX[d]);
  const cells = state.cells, goals = state.goals;
  let p = r.pos;
  for (let i = 0; i < movers; i++) {
    const code = b[p++];
    const kind = code & 15;
    if (kind === 0) {
      if (wantWaits) waitedScratch[i] = 1;
    } else if (kind <= 8) {
      cells[i] += offsets[kind];
    } else {
      r.pos = p;
      cells[i] = r.varint();
      p = r.pos;
    }
    if (code & 16) {
      r.pos = p;
      goals[i] = r.varint() - 1;
      p = r.pos;
    }
  }
  if (p !== trace.tickEnd[k]) throw new TraceError('tick ' + k + ' does not add up');
  return wantWaits ? waitedScratch : null;
}

/** Robots' headings at any tick: the /headings stream, indexed with keyframes like the trace. */
class Headings {
  constructor(bytes, agents, ticks) {
    if (bytes.length < agents) throw new TraceError('the headings stream ends early');
    this.bytes = bytes;
    this.now = bytes.slice(0, agents);
    this.keyframes = [this.now.slice()];
    this.tickStart = [];
    const r = new Bytes(bytes, agents);
    const h = this.now.slice();
    for (let k = 0; k < ticks; k++) {
      this.tickStart.push(r.pos);
      const n = r.varint();
      for (let i = 0; i < n; i++) {
        const a = r.varint(), v = r.u8();
        if (a >= agents || v > 3) throw new TraceError('bad heading of agent ' + a + ' in tick ' + k);
        h[a] = v;
      }
      if ((k + 1) % KEYFRAME_EVERY === 0) this.keyframes.push(h.slice());
    }
    if (r.pos !== bytes.length) throw new TraceError('the headings stream has ' + (bytes.length - r.pos) + ' bytes too many');
    this.tick = 0;
  }
  seek(t) {
    const k = Math.floor(t / KEYFRAME_EVERY);
    if (!(t >= this.tick && t - this.tick < KEYFRAME_EVERY && this.tick >= k * KEYFRAME_EVERY)) {
      this.now.set(this.keyframes[k]);
      this.tick = k * KEYFRAME_EVERY;
    }
    for (; this.tick < t; this.tick++) {
      const r = new Bytes(this.bytes, this.tickStart[this.tick]);
      const n = r.varint();
      for (let i = 0; i < n; i++) {
        const a = r.varint();
        this.now[a] = r.u8();
      }
    }
  }
}

class Viewer {
  constructor(trace, headings) {
    this.trace = trace;
    this.headings = headings || null;
    this.state = new State(16);
    this.tick = -1; // nothing replayed yet: the first seek restores a keyframe
    this.canvas = document.getElementById('view');
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.playing = false;
    this.speed = 10;
    this.selected = -1; // agent number
    this.selectedPath = null;
    this.heat = false;
    this.heatKind = 'visits';
    this.dirty = true;
    // Layers one pixel per cell, scaled when drawn.
    const { width, height } = trace;
    this.mapLayer = makeCanvas(width, height);
    this.drawnMapVersion = -1;
    this.drawnHeat = null;
    this.agentLayer = makeCanvas(width, height);
    this.agentCtx = this.agentLayer.getContext('2d');
    this.agentImage = this.agentCtx.createImageData(width, height);
    this.agentPixels = new Uint32Array(this.agentImage.data.buffer);
    this.lastPixels = new Int32Array(0);
    this.lastCount = 0;
    this.colourWords = {};
    for (const [k, c] of Object.entries(COLOURS)) this.colourWords[k] = rgbaWord(c);
    this.groupWords = GROUPS.map(rgbaWord);
    this.seek(0);
    this.resize();
    this.fit();
  }

  seek(t) {
    const trace = this.trace;
    t = Math.max(0, Math.min(trace.ticks, t | 0));
    const k = Math.floor(t / KEYFRAME_EVERY);
    if (!(t >= this.tick && t - this.tick < KEYFRAME_EVERY && this.tick >= k * KEYFRAME_EVERY)) {
      this.state.restore(trace.keyframes[k]);
      this.state.walkableShared = true;
      this.tick = k * KEYFRAME_EVERY;
    }
    while (this.tick < t) applyTick(trace, this.state, this.tick++, false);
    if (this.headings) this.headings.seek(t);
    this.dirty = true;
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.max(1, Math.round(this.canvas.clientWidth * dpr));
    this.canvas.height = Math.max(1, Math.round(this.canvas.clientHeight * dpr));
    this.dpr = dpr;
    this.dirty = true;
  }

  fit() {
    const { width, height } = this.trace;
    const top = (document.getElementById('bar').offsetHeight + 4) * this.dpr;
    const cw = this.canvas.width, ch = this.canvas.height - top;
    this.scale = Math.max(0.05, Math.min(cw / width, ch / height));
    this.ox = (cw - width * this.scale) / 2;
    this.oy = top + (ch - height * this.scale) / 2;
    this.dirty = true;
  }

  /** Zoom by `factor` around the canvas point (px, py). */
  zoom(factor, px, py) {
    const s = Math.max(0.05, Math.min(200, this.scale * factor));
    this.ox = px - (px - this.ox) * (s / this.scale);
    this.oy = py - (py - this.oy) * (s / this.scale);
    this.scale = s;
    this.dirty = true;
  }

  /** Z pixels per cell, centred on the selected agent, or else on the middle of the map. */
  zoomTo(z) {
    if (!(z > 0)) return;
    const { width, height } = this.trace;
    let cx = width / 2, cy = height / 2;
    const s = this.state;
    for (let i = 0; i < s.count; i++) {
      if (s.ids[i] === this.selected) { cx = (s.cells[i] % width) + 0.5; cy = Math.floor(s.cells[i] / width) + 0.5; }
    }
    this.scale = Math.max(0.05, Math.min(200, z));
    this.ox = this.canvas.width / 2 - cx * this.scale;
    this.oy = this.canvas.height / 2 - cy * this.scale;
    this.dirty = true;
  }

  cellAt(px, py) {
    const x = Math.floor((px - this.ox) / this.scale), y = Math.floor((py - this.oy) / this.scale);
    if (x < 0 || y < 0 || x >= this.trace.width || y >= this.trace.height) return -1;
    return y * this.trace.width + x;
  }

  select(cell) {
    const s = this.state;
    this.selected = -1;
    this.selectedPath = null;
    // The agent on the cell, or failing that on a neighbouring one (small cells are hard to hit).
    const w = this.trace.width;
    let best = -1, bestD = 3;
    for (let i = 0; i < s.count; i++) {
      const c = s.cells[i];
      const d = Math.max(Math.abs((c % w) - (cell % w)), Math.abs(Math.floor(c / w) - Math.floor(cell / w)));
      if (d < bestD) { bestD = d; best = i; }
    }
    if (best >= 0 && cell >= 0) {
      this.selected = s.ids[best];
      this.selectedPath = this.pathOf(this.selected);
    }
    this.dirty = true;
  }

  /** The cell of agent `id` at every tick (-1 while not live), replayed from the start. */
  pathOf(id) {
    const trace = this.trace;
    const st = new State(16);
    st.restore(trace.keyframes[0]);
    st.walkableShared = true;
    const path = new Int32Array(trace.ticks + 1).fill(-1);
    const find = () => {
      for (let i = 0; i < st.count; i++) if (st.ids[i] === id) return st.cells[i];
      return -1;
    };
    path[0] = find();
    for (let k = 0; k < trace.ticks; k++) {
      applyTick(trace, st, k, false);
      path[k + 1] = find();
    }
    return path;
  }

  drawMapLayer() {
    const key = this.heat ? this.heatKind : null;
    if (this.drawnMapVersion === this.state.mapVersion && this.drawnHeat === key
        && this.drawnWalkable === this.state.walkable) return;
    const { width, height } = this.trace;
    const ctx = this.mapLayer.getContext('2d');
    const image = ctx.createImageData(width, height);
    const px = new Uint32Array(image.data.buffer);
    const walk = this.state.walkable;
    const floor = rgbaWord(COLOURS.floor), wall = rgbaWord(COLOURS.wall);
    if (key) {
      const counts = key === 'visits' ? this.trace.visits : this.trace.waits;
      let max = 1;
      for (let i = 0; i < counts.length; i++) if (counts[i] > max) max = counts[i];
      const lmax = Math.log1p(max);
      for (let i = 0; i < px.length; i++) {
        if (!walk[i]) { px[i] = wall; continue; }
        px[i] = counts[i] ? rgbaWord(heatColour(Math.log1p(counts[i]) / lmax)) : floor;
      }
    } else {
      for (let i = 0; i < px.length; i++) px[i] = walk[i] ? floor : wall;
    }
    ctx.putImageData(image, 0, 0);
    this.drawnMapVersion = this.state.mapVersion;
    this.drawnWalkable = this.state.walkable;
    this.drawnHeat = key;
  }

  colourOf(i) {
    const s = this.state;
    if (s.ids[i] === this.selected) return 'selected';
    if (s.cells[i] === s.goals[i]) return 'arrived';
    if (this.trace.hasGroups) {
      const g = this.trace.groups[s.ids[i]];
      if (g > 0) return g % GROUPS.length;
    }
    return 'moving';
  }

  draw() {
    const ctx = this.ctx, s = this.state, trace = this.trace;
    const { width, height } = trace;
    this.drawMapLayer();
    ctx.imageSmoothingEnabled = false;
    ctx.fillStyle = '#20242a';
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    const W = width * this.scale, H = height * this.scale;
    ctx.drawImage(this.mapLayer, this.ox, this.oy, W, H);
    if (this.scale < 4) {
      // Small cells: one pixel per agent in a map-sized image, scaled up by drawImage.
      const px = this.agentPixels;
      for (let i = 0; i < this.lastCount; i++) px[this.lastPixels[i]] = 0;
      if (this.lastPixels.length < s.count) this.lastPixels = new Int32Array(s.count * 2);
      const words = this.colourWords, groups = this.groupWords;
      for (let i = 0; i < s.count; i++) {
        const c = s.cells[i];
        const k = this.colourOf(i);
        px[c] = typeof k === 'number' ? groups[k] : words[k];
        this.lastPixels[i] = c;
      }
      this.lastCount = s.count;
      this.agentCtx.putImageData(this.agentImage, 0, 0);
      ctx.drawImage(this.agentLayer, this.ox, this.oy, W, H);
    } else {
      // Large cells: one square per visible agent, batched by colour.
      const x0 = Math.floor(-this.ox / this.scale) - 1, y0 = Math.floor(-this.oy / this.scale) - 1;
      const x1 = x0 + this.canvas.width / this.scale + 2, y1 = y0 + this.canvas.height / this.scale + 2;
      const batches = new Map();
      const notches = [];
      const facing = this.headings ? this.headings.now : null;
      for (let i = 0; i < s.count; i++) {
        const c = s.cells[i], x = c % width, y = (c - x) / width;
        if (x < x0 || x > x1 || y < y0 || y > y1) continue;
        const k = this.colourOf(i);
        let list = batches.get(k);
        if (!list) batches.set(k, list = []);
        list.push(x, y);
        if (facing) notches.push(x, y, facing[s.ids[i]]);
      }
      const m = this.scale * 0.12, size = this.scale - 2 * m;
      for (const [k, list] of batches) {
        const c = typeof k === 'number' ? GROUPS[k] : COLOURS[k];
        ctx.fillStyle = 'rgb(' + c.join(',') + ')';
        for (let j = 0; j < list.length; j += 2) {
          ctx.fillRect(this.ox + list[j] * this.scale + m, this.oy + list[j + 1] * this.scale + m, size, size);
        }
      }
      // A robot's heading: a dark notch on the side it faces, a quarter of the cell wide.
      const n = this.scale * 0.26, reach = this.scale * 0.5 - m - n / 2;
      ctx.fillStyle = NOTCH;
      for (let j = 0; j < notches.length; j += 3) {
        const h = notches[j + 2];
        const cx = this.ox + (notches[j] + 0.5) * this.scale + HEADING_DX[h] * reach;
        const cy = this.oy + (notches[j + 1] + 0.5) * this.scale + HEADING_DY[h] * reach;
        ctx.fillRect(cx - n / 2, cy - n / 2, n, n);
      }
    }
    this.drawSelection();
  }

  drawSelection() {
    if (this.selected < 0 || !this.selectedPath) return;
    const ctx = this.ctx, w = this.trace.width, s = this.scale;
    const centre = (c) => [this.ox + ((c % w) + 0.5) * s, this.oy + (Math.floor(c / w) + 0.5) * s];
    ctx.strokeStyle = 'rgba(230, 40, 40, 0.8)';
    ctx.lineWidth = Math.max(1.5, s * 0.25);
    ctx.beginPath();
    let open = false;
    for (const c of this.selectedPath) {
      if (c < 0) { open = false; continue; }
      const [x, y] = centre(c);
      if (open) ctx.lineTo(x, y); else ctx.moveTo(x, y);
      open = true;
    }
    ctx.stroke();
    const st = this.state;
    for (let i = 0; i < st.count; i++) {
      if (st.ids[i] !== this.selected) continue;
      const r = Math.max(4, s * 0.8);
      for (const [c, colour] of [[st.goals[i], '#e62828'], [st.cells[i], '#ffffff']]) {
        if (c < 0) continue;
        const [x, y] = centre(c);
        ctx.strokeStyle = colour;
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.arc(x, y, r, 0, 2 * Math.PI);
        ctx.stroke();
      }
      const [x, y] = [st.cells[i] % w, Math.floor(st.cells[i] / w)];
      const g = st.goals[i];
      const facing = this.headings ? ', facing ' + HEADING_NAMES[this.headings.now[this.selected]] : '';
      document.getElementById('info').textContent = 'agent ' + this.selected + ' at (' + x + ', ' + y + ')' +
        facing + (g >= 0 ? ', goal (' + (g % w) + ', ' + Math.floor(g / w) + ')' : ', no goal');
      return;
    }
    document.getElementById('info').textContent = 'agent ' + this.selected + ' is gone';
  }

  updateText() {
    document.getElementById('tick').textContent = 'tick ' + this.tick + ' / ' + this.trace.ticks;
    document.getElementById('agents').textContent = this.state.count + ' agents';
    const slider = document.getElementById('slider');
    if (Number(slider.value) !== this.tick) slider.value = String(this.tick);
    document.getElementById('play').textContent = this.playing ? 'pause' : 'play';
  }

  frame() {
    if (this.dirty) {
      this.draw();
      this.updateText();
      this.dirty = false;
    }
  }
}

function makeCanvas(w, h) {
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  return c;
}

const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
function rgbaWord([r, g, b]) {
  return littleEndian ? (0xff000000 | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 0xff) >>> 0;
}

/** Dark blue through red to yellow for t in 0..1. */
function heatColour(t) {
  const stops = [[40, 40, 120], [180, 30, 90], [250, 120, 30], [255, 240, 120]];
  const x = Math.min(0.999, Math.max(0, t)) * (stops.length - 1);
  const i = Math.floor(x), f = x - i;
  return stops[i].map((v, j) => Math.round(v + (stops[i + 1][j] - v) * f));
}

function wireUp(viewer) {
  const canvas = viewer.canvas;
  const play = document.getElementById('play');
  const slider = document.getElementById('slider');
  slider.max = String(viewer.trace.ticks);
  slider.disabled = false;
  play.disabled = false;
  play.addEventListener('click', () => {
    if (!viewer.playing && viewer.tick >= viewer.trace.ticks) viewer.seek(0);
    viewer.playing = !viewer.playing;
    viewer.dirty = true;
  });
  document.getElementById('speed').addEventListener('change', (e) => { viewer.speed = Number(e.target.value); });
  slider.addEventListener('input', () => { viewer.seek(Number(slider.value)); });
  document.getElementById('heat').addEventListener('change', (e) => { viewer.heat = e.target.checked; viewer.dirty = true; });
  document.getElementById('heatkind').addEventListener('change', (e) => { viewer.heatKind = e.target.value; viewer.dirty = true; });
  document.getElementById('fit').addEventListener('click', () => viewer.fit());
  window.addEventListener('resize', () => { viewer.resize(); viewer.dirty = true; });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    viewer.zoom(Math.exp(-e.deltaY * 0.0015), e.offsetX * viewer.dpr, e.offsetY * viewer.dpr);
  }, { passive: false });
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => {
    drag = { x: e.offsetX, y: e.offsetY, ox: viewer.ox, oy: viewer.oy, moved: false };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.offsetX - drag.x, dy = e.offsetY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) { drag.moved = true; canvas.classList.add('dragging'); }
    if (drag.moved) {
      viewer.ox = drag.ox + dx * viewer.dpr;
      viewer.oy = drag.oy + dy * viewer.dpr;
      viewer.dirty = true;
    }
  });
  canvas.addEventListener('pointerup', (e) => {
    if (drag && !drag.moved) viewer.select(viewer.cellAt(e.offsetX * viewer.dpr, e.offsetY * viewer.dpr));
    drag = null;
    canvas.classList.remove('dragging');
  });
  window.addEventListener('keydown', (e) => {
    if (e.key === ' ') { play.click(); e.preventDefault(); }
    if (e.key === 'ArrowRight') viewer.seek(viewer.tick + 1);
    if (e.key === 'ArrowLeft') viewer.seek(viewer.tick - 1);
  });
  let last = performance.now(), owed = 0;
  const loop = (now) => {
    if (viewer.playing) {
      owed += (now - last) / 1000 * viewer.speed;
      const steps = Math.floor(owed);
      if (steps > 0) {
        owed -= steps;
        viewer.seek(Math.min(viewer.trace.ticks, viewer.tick + steps));
        if (viewer.tick >= viewer.trace.ticks) { viewer.playing = false; viewer.dirty = true; }
      }
    } else {
      owed = 0;
    }
    last = now;
    viewer.frame();
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
}

/** GET url as bytes, or null when the server has none (404). */
async function loadOptional(url) {
  const response = await fetch(url);
  if (response.status === 404) return null;
  if (!response.ok) throw new TraceError('GET ' + url + ': ' + response.status);
  return new Uint8Array(await response.arrayBuffer());
}

/** ?bench=N[&zoom=Z]: draws N frames, each one tick further, and writes the mean frame time. */
function bench(viewer, frames, zoom) {
  if (zoom > 0) viewer.zoomTo(zoom);
  const probe = () => viewer.ctx.getImageData(0, 0, 1, 1); // waits for the drawing to finish
  viewer.draw();
  probe();
  const t0 = performance.now();
  for (let f = 0; f < frames; f++) {
    viewer.seek(viewer.tick >= viewer.trace.ticks ? 0 : viewer.tick + 1);
    viewer.draw();
    probe();
  }
  const ms = (performance.now() - t0) / frames;
  viewer.updateText();
  const out = document.createElement('p');
  out.id = 'bench';
  out.textContent = 'bench: ' + frames + ' frames, mean frame ' + ms.toFixed(3) + ' ms, '
    + viewer.state.count + ' agents, ' + viewer.scale.toFixed(2) + ' px per cell, canvas '
    + viewer.canvas.width + ' x ' + viewer.canvas.height;
  document.body.appendChild(out);
}

/**
 * The trace, uncompressed, by a synchronous request: the bench mode runs whole while the page
 * loads, so that headless Chromium's --dump-dom (which dumps once the page has loaded) sees its
 * result, on real time (--virtual-time-budget would freeze the clock the bench reads).
 */
function loadTraceSync(url) {
  const xhr = new XMLHttpRequest();
  xhr.open('GET', url, false);
  xhr.overrideMimeType('text/plain; charset=x-user-defined');
  xhr.send();
  if (xhr.status !== 200) throw new TraceError('GET ' + url + ': ' + xhr.status);
  const text = xhr.responseText;
  const file = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) file[i] = text.charCodeAt(i) & 0xff;
  if (String.fromCharCode(...file.subarray(0, 8)) !== 'THRTRACE' || (file[10] & 1)) {
    throw new TraceError(url + ' is not an uncompressed trace');
  }
  return parseTrace(file.subarray(12));
}

(async function main() {
  const status = document.getElementById('status');
  const params = new URLSearchParams(location.search);
  const frames = Number(params.get('bench') || 0);
  try {
    const t0 = performance.now();
    const trace = frames > 0 ? loadTraceSync('trace.raw') : await loadTrace('trace');
    // What is shown, and the robots' headings when they turn (the bench mode draws without).
    const about = frames > 0 ? null : await loadOptional('about');
    const headingBytes = frames > 0 ? null : await loadOptional('headings');
    const agents = trace.keyframes[0].ids.length;
    const headings = headingBytes ? new Headings(headingBytes, agents, trace.ticks) : null;
    const viewer = new Viewer(trace, headings);
    window.throngViewer = viewer;
    status.textContent = '';
    const source = about ? new TextDecoder().decode(about) : '';
    document.getElementById('source').textContent = source;
    document.title = 'throng view: ' + (source ? source + ', ' : '') + trace.width + ' x ' + trace.height + ', ' + trace.ticks + ' ticks';
    // Links can say what to show: ?tick=T, &agent=N (selected), &heat=visits|waits, &zoom=Z
    // (pixels per cell, centred on the selected agent or the map).
    if (params.has('tick')) viewer.seek(Number(params.get('tick')));
    if (params.has('heat')) {
      viewer.heat = true;
      viewer.heatKind = params.get('heat') === 'waits' ? 'waits' : 'visits';
      document.getElementById('heat').checked = true;
      document.getElementById('heatkind').value = viewer.heatKind;
    }
    if (params.has('agent')) {
      const id = Number(params.get('agent'));
      viewer.selected = id;
      viewer.selectedPath = viewer.pathOf(id);
    }
    if (frames > 0) {
      bench(viewer, frames, Number(params.get('zoom') || 0));
    } else if (params.has('zoom')) {
      viewer.zoomTo(Number(params.get('zoom')));
    }
    viewer.frame();
    viewer.updateText();
    wireUp(viewer);
    console.log('trace loaded in ' + (performance.now() - t0).toFixed(0) + ' ms');
  } catch (e) {
    status.textContent = 'error: ' + e.message;
    throw e;
  }
})();
