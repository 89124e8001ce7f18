// The playground: a chain of filters from the registry's catalogue over an image or the
// camera, on the page's WebGPU device (the CPU twins without one). Everything the page lists
// comes from `catalogue()`: names, families, docs, parameter kinds, defaults and ranges.
import init, { catalogue, Engine } from './pkg/texelflow_web.js';

const $ = (id) => document.getElementById(id);
const MAX_SIDE = 1280; // larger images are scaled down for interactive use
const state = { chain: [], src: null, running: false, again: false, camera: null };

await init();
const filters = JSON.parse(catalogue()).filters;
const engine = await Engine.open();
$('device').textContent = engine.note;

// what a page can run: image in and out, no files or text, no state between frames
const usable = filters.filter((f) => f.family !== 'temporal (video)'
  && f.inputs.length >= 1 && f.inputs[0].kind === 'image'
  && f.outputs.length >= 1 && f.outputs[0].kind === 'image'
  && f.params.every((p) => !['path', 'text', 'named', 'points'].includes(p.kind) || (p.kind === 'path' && !p.required)));
const byName = new Map(filters.map((f) => [f.name, f]));
{
  const families = new Map();
  for (const f of usable) {
    if (!families.has(f.family)) families.set(f.family, []);
    families.get(f.family).push(f);
  }
  for (const [fam, list] of families) {
    const g = document.createElement('optgroup');
    g.label = fam;
    for (const f of list) {
      const o = document.createElement('option');
      o.value = f.name;
      o.textContent = f.name;
      g.append(o);
    }
    $('add').append(g);
  }
  const describe = () => { $('add-doc').textContent = byName.get($('add').value)?.summary ?? ''; };
  $('add').addEventListener('change', describe);
  describe();
}

// --- the chain ---------------------------------------------------------------------------
function defaults(f) {
  const v = {};
  for (const p of f.params) if ('default' in p && p.kind !== 'image') v[p.name] = p.default;
  for (const p of f.params) if (p.kind === 'image') v[p.name] = 'original';
  return v;
}

function fmt(x) { return Number.isInteger(x) ? String(x) : String(Math.round(x * 1e4) / 1e4); }

function specOf(chain) {
  return chain.map(({ f, values }) => {
    // only what differs from the defaults: the spec stays short and reads as written by hand
    const same = (p, v) => JSON.stringify(v) === JSON.stringify(p.default);
    const args = f.params.filter((p) => p.name in values && values[p.name] !== undefined && !same(p, values[p.name])).map((p) => {
      const v = values[p.name];
      if (p.kind === 'floats') return `${p.name}=[${v.map(fmt).join(', ')}]`;
      if (p.kind === 'float' || p.kind === 'int') return `${p.name}=${fmt(v)}`;
      return `${p.name}=${v}`;
    });
    return args.length ? `${f.name}(${args.join(', ')})` : f.name;
  }).join(' | ');
}

function hex(rgb) { return '#' + rgb.slice(0, 3).map((c) => Math.round(Math.min(1, Math.max(0, c)) * 255).toString(16).padStart(2, '0')).join(''); }
function unhex(h, keep) { const n = parseInt(h.slice(1), 16); const rgb = [(n >> 16) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255]; return keep.length > 3 ? [...rgb, ...keep.slice(3)] : rgb; }

let uid = 0;
function control(node, p) {
  const id = `p${uid++}`;
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = p.name;
  label.title = p.doc;
  const wrap = document.createElement('div');
  let input;
  const set = (v) => { node.values[p.name] = v; schedule(); };
  if (p.kind === 'float' || p.kind === 'int') {
    input = document.createElement('input');
    input.type = 'range';
    const [min, max] = p.range;
    input.min = min; input.max = max;
    input.step = p.kind === 'int' ? 1 : (max - min) / 200;
    input.value = node.values[p.name];
    const out = document.createElement('output');
    out.htmlFor = id;
    out.textContent = fmt(node.values[p.name]);
    input.addEventListener('input', () => { const v = Number(input.value); out.textContent = fmt(v); set(v); });
    wrap.append(input, out);
  } else if (p.kind === 'bool') {
    input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = node.values[p.name];
    input.addEventListener('change', () => set(input.checked));
    wrap.append(input);
  } else if (p.kind === 'choice') {
    input = document.createElement('select');
    for (const o of p.options) { const e = document.createElement('option'); e.value = e.textContent = o; input.append(e); }
    input.value = node.values[p.name];
    input.addEventListener('change', () => set(input.value));
    wrap.append(input);
  } else if (p.kind === 'floats' && (p.default.length === 3 || p.default.length === 4) && p.range[0] === 0 && p.range[1] === 1) {
    input = document.createElement('input');
    input.type = 'color';
    input.value = hex(node.values[p.name]);
    input.addEventListener('input', () => set(unhex(input.value, node.values[p.name])));
    wrap.append(input);
  } else if (p.kind === 'floats') {
    input = document.createElement('input');
    input.type = 'text';
    input.value = node.values[p.name].join(', ');
    input.addEventListener('change', () => set(input.value.split(',').map(Number)));
    wrap.append(input);
  } else if (p.kind === 'image') {
    input = document.createElement('select');
    const e = document.createElement('option'); e.value = e.textContent = 'original'; input.append(e);
    wrap.append(input);
  } else {
    return null;
  }
  input.id = id;
  input.setAttribute('aria-describedby', `${id}-doc`);
  const doc = document.createElement('span');
  doc.id = `${id}-doc`;
  doc.className = 'visually-hidden';
  doc.textContent = p.doc;
  const box = document.createElement('div');
  box.append(label, wrap, doc);
  return box;
}

function renderChain() {
  const ol = $('nodes');
  ol.replaceChildren();
  state.chain.forEach((node, i) => {
    const li = document.createElement('li');
    const head = document.createElement('header');
    const name = document.createElement('span');
    name.textContent = node.f.name;
    name.title = node.f.doc;
    const tools = document.createElement('span');
    for (const [text, what, fn] of [['↑', 'move up', () => move(i, -1)], ['↓', 'move down', () => move(i, 1)], ['✕', 'remove', () => remove(i)]]) {
      const b = document.createElement('button');
      b.type = 'button'; b.textContent = text; b.setAttribute('aria-label', `${what} ${node.f.name}`);
      b.addEventListener('click', fn);
      tools.append(b);
    }
    head.append(name, tools);
    li.append(head);
    for (const p of node.f.params) { const c = control(node, p); if (c) li.append(c); }
    ol.append(li);
  });
}
function move(i, d) { const j = i + d; if (j < 0 || j >= state.chain.length) return; [state.chain[i], state.chain[j]] = [state.chain[j], state.chain[i]]; renderChain(); schedule(); }
function remove(i) { state.chain.splice(i, 1); renderChain(); schedule(); }
$('add-btn').addEventListener('click', () => {
  const f = byName.get($('add').value);
  if (!f) return;
  state.chain.push({ f, values: defaults(f) });
  renderChain();
  schedule();
});

// --- sources -----------------------------------------------------------------------------
function setSource(drawable, w, h) {
  const s = Math.min(1, MAX_SIDE / Math.max(w, h));
  const [cw, ch] = [Math.max(1, Math.round(w * s)), Math.max(1, Math.round(h * s))];
  const c = $('before');
  c.width = cw; c.height = ch;
  const ctx = c.getContext('2d', { willReadFrequently: true });
  ctx.drawImage(drawable, 0, 0, cw, ch);
  const data = ctx.getImageData(0, 0, cw, ch).data;
  state.src = { w: cw, h: ch, rgba: new Uint8Array(data.buffer.slice(0)) };
  engine.set_image('original', cw, ch, state.src.rgba);
  schedule();
}
async function openBlob(blob) {
  try { const bmp = await createImageBitmap(blob); setSource(bmp, bmp.width, bmp.height); }
  catch (e) { $('error').textContent = `could not open that image: ${e.message}`; }
}
$('file').addEventListener('change', () => { const f = $('file').files[0]; if (f) openBlob(f); });
document.addEventListener('dragover', (e) => e.preventDefault());
document.addEventListener('drop', (e) => { e.preventDefault(); const f = e.dataTransfer.files[0]; if (f) openBlob(f); });
document.addEventListener('paste', (e) => { const f = [...e.clipboardData.files][0]; if (f) openBlob(f); });
function sample() {
  // a generated picture: shaded shapes, so every filter has something to show
  const c = new OffscreenCanvas(480, 320);
  const g = c.getContext('2d');
  const sky = g.createLinearGradient(0, 0, 0, 320); sky.addColorStop(0, '#6ab'); sky.addColorStop(1, '#fd9');
  g.fillStyle = sky; g.fillRect(0, 0, 480, 320);
  g.fillStyle = '#c53'; g.beginPath(); g.arc(150, 170, 80, 0, 7); g.fill();
  g.fillStyle = '#274'; g.fillRect(260, 120, 160, 150);
  g.fillStyle = '#fff'; g.font = 'bold 44px sans-serif'; g.fillText('texelflow', 120, 70);
  setSource(c, 480, 320);
}
$('sample').addEventListener('click', sample);
// The camera. With WebGPU each frame stays on the GPU: the video's frame is copied into a
// texture, the chain's recorded commands run, and the result is copied into the `live` canvas
// (Engine.live; nothing is read back, so the histogram is not drawn meanwhile). Without
// WebGPU, frames go through the CPU twins as still images do.
// `?readback`: results read back into the 2D canvas instead (what the tests use: a headless
// browser on SwiftShader loses its device on any WebGPU canvas)
const READBACK = new URLSearchParams(location.search).has('readback');
const live = { obj: null, key: '', frames: 0, fps: 0, since: 0, error: '', reading: false };
function stopCamera() {
  state.camera.getTracks().forEach((t) => t.stop());
  state.camera = null;
  live.obj?.free(); live.obj = null; live.key = '';
  $('live').hidden = true; $('after').hidden = false;
  $('camera').textContent = 'Camera';
  schedule();
}
async function liveFrame(v) {
  const [w, h] = [v.videoWidth, v.videoHeight];
  if (!w || !h) return true;
  const spec = specOf(state.chain) || 'brightness';
  const key = `${spec}@${w}x${h}`;
  if (live.key !== key) {
    live.obj?.free(); live.obj = null; live.key = key;
    $('spec').value = specOf(state.chain);
    try {
      live.obj = engine.live(spec, w, h, READBACK ? undefined : $('live'));
      live.error = '';
    } catch (e) {
      // a chain that cannot run live (it ends in data, keeps state): still frames instead
      live.error = String(e.message ?? e);
    }
    live.frames = 0; live.since = performance.now();
  }
  if (!live.obj) return false;
  const c = $('before');
  if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
  c.getContext('2d').drawImage(v, 0, 0);
  // through an ImageBitmap (a copy on the GPU in Chromium): headless SwiftShader loses its
  // device copying from the video element itself, and this way the tests run the page's path
  const bmp = await createImageBitmap(v);
  if (!live.obj) { bmp.close(); return true; }
  live.obj.frame(bmp);
  bmp.close();
  if (READBACK) {
    // one read in flight; frames go on meanwhile
    if (!live.reading) {
      live.reading = true;
      const [ow, oh] = [live.obj.width, live.obj.height];
      live.obj.read().then((rgba) => {
        const a = $('after');
        if (a.width !== ow || a.height !== oh) { a.width = ow; a.height = oh; }
        a.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer), ow, oh), 0, 0);
      }).catch((e) => { $('error').textContent = String(e.message ?? e); }).finally(() => { live.reading = false; });
    }
  } else {
    $('live').hidden = false; $('after').hidden = true;
  }
  live.frames++;
  const t = performance.now();
  if (t - live.since >= 1000) {
    live.fps = (live.frames * 1000) / (t - live.since);
    live.frames = 0; live.since = t;
    $('timing').textContent = `live: ${state.chain.length} filter(s), ${w}×${h} → ${live.obj.width}×${live.obj.height}, ${live.fps.toFixed(1)} frames/s on the GPU (each frame stays on the GPU)`;
  }
  $('error').textContent = '';
  return true;
}
$('camera').addEventListener('click', async () => {
  if (state.camera) { stopCamera(); return; }
  try {
    state.camera = await navigator.mediaDevices.getUserMedia({ video: { width: 1280, height: 720 } });
    const v = $('video'); v.srcObject = state.camera; await v.play();
    $('camera').textContent = 'Stop camera';
    const frame = async () => {
      if (!state.camera) return;
      try {
        if (!(engine.gpu && await liveFrame(v)) && !state.running) {
          $('live').hidden = true; $('after').hidden = false;
          setSource(v, v.videoWidth, v.videoHeight);
          if (live.error) $('error').textContent = `not live on the GPU: ${live.error}`;
        }
      } catch (e) { $('error').textContent = String(e.message ?? e); }
      requestAnimationFrame(frame);
    };
    frame();
  } catch (e) { $('error').textContent = `no camera: ${e.message}`; }
});

// --- running -----------------------------------------------------------------------------
// while the camera is live its loop picks up the chain's changes itself
function schedule() { if (state.camera && live.obj) return; if (state.running) { state.again = true; return; } run(); }
async function run() {
  if (!state.src) return;
  state.running = true;
  const spec = specOf(state.chain) || 'brightness';
  $('spec').value = specOf(state.chain);
  try {
    const out = await engine.run(spec, state.src.w, state.src.h, state.src.rgba, !engine.gpu);
    $('error').textContent = '';
    if (out.data !== undefined) {
      $('error').textContent = 'the chain ends in data: ' + out.data.slice(0, 200);
    } else {
      const c = $('after');
      c.width = out.width; c.height = out.height;
      c.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(out.rgba), out.width, out.height), 0, 0);
      clip();
      const nodes = JSON.parse(out.nodes);
      const per = nodes.length ? '; per node on the GPU: ' + nodes.map((n) => `${n.label} ${n.ms.toFixed(2)} ms`).join(', ') : '';
      $('timing').textContent = `${state.chain.length} filter(s), ${out.width}×${out.height}, ${out.ms.toFixed(1)} ms on the ${out.device.toUpperCase()} (upload, kernels, readback)${per}`;
      // the plot's histogram on the CPU twin: ~1 ms here, where a software GPU would first
      // spend a second compiling the reduction's kernels
      const h = await engine.run('histogram', out.width, out.height, out.rgba, true);
      plot(JSON.parse(h.data));
    }
  } catch (e) {
    $('error').textContent = String(e.message ?? e);
  }
  state.running = false;
  if (state.again) { state.again = false; run(); }
}
function clip() {
  const pct = Number($('divider').value);
  $('after').style.clipPath = $('live').style.clipPath = `inset(0 0 0 ${pct}%)`;
}
$('divider').addEventListener('input', clip);
function plot(data) {
  const c = $('histogram'), g = c.getContext('2d');
  g.clearRect(0, 0, c.width, c.height);
  const colours = { r: '#e33a', g: '#3b3a', b: '#36fa', l: '#888a', red: '#e33a', green: '#3b3a', blue: '#36fa', luminance: '#888a' };
  const hist = data.histogram ?? {};
  let max = 1;
  for (const [k, bins] of Object.entries(hist)) if (k !== 'a' && k !== 'alpha') for (const v of bins) max = Math.max(max, v);
  for (const [k, bins] of Object.entries(hist)) {
    if (k === 'a' || k === 'alpha') continue;
    g.strokeStyle = colours[k] ?? '#888';
    g.beginPath();
    bins.forEach((v, i) => { const x = (i / (bins.length - 1)) * c.width, y = c.height - (v / max) * c.height; i ? g.lineTo(x, y) : g.moveTo(x, y); });
    g.stroke();
  }
}
$('copy').addEventListener('click', () => navigator.clipboard?.writeText($('spec').value));
$('export').addEventListener('click', () => {
  $('after').toBlob((b) => { const a = document.createElement('a'); a.href = URL.createObjectURL(b); a.download = 'texelflow.png'; a.click(); }, 'image/png');
});

// a first picture and chain, so the page shows what it does at once: per-pixel filters, one
// fused kernel, quick to compile (a blur's kernels take seconds to compile on a software GPU)
for (const [name, values] of [['sepia', { intensity: 0.8 }], ['vignette', {}]]) {
  const f = byName.get(name);
  state.chain.push({ f, values: { ...defaults(f), ...values } });
}
renderChain();
sample();
window.__playground = { state, specOf, engine, live, ready: true };
