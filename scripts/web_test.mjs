// Drives the web pages in headless Chromium (scripts/test-web.sh), WebGPU on SwiftShader:
// 1. web/test.html: every case must agree with the CPU twins (web/test.js);
// 2. the playground (web/index.html): a photo opened through the file picker, a filter added
//    from the catalogue, a slider moved: the output must change each time; a screenshot;
// 3. the playground in a browser without WebGPU: the CPU twins run, and the page says so.
// Writes results.json and screenshots into OUT_DIR; exits 1 on any failure.
// Usage: node scripts/web_test.mjs URL OUT_DIR PHOTO (CHROME: the browser).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const puppeteer = require('puppeteer-core');
const [url, out, photo] = process.argv.slice(2);
const WEBGPU = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-webgpu-adapter=swiftshader', '--use-angle=swiftshader'];
// Chromium's fake camera (a moving test pattern), granted without asking
const CAMERA = ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'];
const launch = (webgpu) => puppeteer.launch({
  executablePath: process.env.CHROME,
  headless: true,
  args: [...(webgpu ? WEBGPU : ['--disable-features=WebGPU']), ...CAMERA, '--no-sandbox', '--window-size=1280,900'],
  defaultViewport: { width: 1280, height: 900 },
});
const report = { tests: null, playground: {}, camera: {}, fallback: {} };
let failures = [];

async function withPage(webgpu, fn) {
  const browser = await launch(webgpu);
  const lines = [];
  try {
    const page = await browser.newPage();
    page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
    return await fn(page);
  } catch (e) {
    failures.push(String(e));
    console.log(lines.join('\n'));
  } finally {
    await browser.close();
  }
}

// the filtered canvas's pixels, summed (a cheap fingerprint of what is shown)
const shown = (page) => page.evaluate(() => {
  const c = document.getElementById('after');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let s = 0;
  for (let i = 0; i < d.length; i += 7) s = (s * 31 + d[i]) >>> 0;
  return `${c.width}x${c.height}:${s}`;
});
// waits until the playground is idle and shows something other than `before`
async function changed(page, before, what) {
  try {
    await page.waitForFunction((b) => {
      const p = window.__playground;
      if (!p || p.state.running || p.state.again) return false;
      const c = document.getElementById('after');
      if (!c.width) return false;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let s = 0;
      for (let i = 0; i < d.length; i += 7) s = (s * 31 + d[i]) >>> 0;
      return `${c.width}x${c.height}:${s}` !== b;
    }, { timeout: 120000, polling: 200 }, before);
  } catch (e) {
    failures.push(`the playground's output did not change after ${what}`);
  }
  return shown(page);
}

// 1. the in-page comparisons
await withPage(true, async (page) => {
  const started = Date.now();
  await page.goto(`${url}/test.html`, { waitUntil: 'load' });
  await page.waitForFunction('window.__results && window.__results.done', { timeout: 240000 });
  const r = await page.evaluate(() => window.__results);
  r.seconds = (Date.now() - started) / 1000;
  report.tests = r;
  for (const c of r.cases) {
    console.log(`${c.ok ? 'ok  ' : c.known ? 'known difference,' : 'FAIL'} ${c.spec} (${c.what})` + (c.max_diff !== undefined ? `: max diff ${c.max_diff}` : '') + (c.twin_diff !== undefined ? `, against the twin ${c.twin_diff}` : '') + (c.ok || !c.worst ? '' : ` (${c.samples_over} samples over; worst at ${JSON.stringify(c.worst)})`) + (c.error ? `: ${c.error}` : '') + (c.gpu_ms !== undefined ? `, gpu ${c.gpu_ms.toFixed(1)} ms, cpu ${c.cpu_ms.toFixed(1)} ms` : ''));
  }
  console.log(`test page: ${r.note}; ${r.filters} filters in the catalogue; a bad spec: ${r.bad_spec}; ${r.seconds.toFixed(1)} s`);
  if (r.error) console.log(`page error: ${r.error}`);
  if (!r.ok) failures.push('the in-page comparisons failed');
  await page.screenshot({ path: path.join(out, 'test-page.png'), fullPage: true });
});

// 2. the playground, as a person would use it
await withPage(true, async (page) => {
  const started = Date.now();
  await page.goto(`${url}/index.html`, { waitUntil: 'load' });
  await page.waitForFunction('window.__playground && window.__playground.ready', { timeout: 120000 });
  let s0 = await changed(page, '', 'loading');
  report.playground.first_result_s = (Date.now() - started) / 1000;
  report.playground.device = await page.$eval('#device', (e) => e.textContent);
  // issue 33: the page loads and runs a filter in under 2 s on SwiftShader; failed past 5 s
  // (a loaded CI machine), the measured time is in the results
  if (report.playground.first_result_s > 5) failures.push(`the first result took ${report.playground.first_result_s} s`);
  const input = await page.$('#file');
  await input.uploadFile(photo);
  const s1 = await changed(page, s0, 'opening a photo');
  await page.select('#add', 'posterize');
  await page.click('#add-btn');
  const s2 = await changed(page, s1, 'adding posterize');
  // the first slider (gaussian_blur's sigma) to near its top
  await page.$eval('#nodes input[type=range]', (r) => { r.value = String(Number(r.max) * 0.1); r.dispatchEvent(new Event('input')); });
  const s3 = await changed(page, s2, 'moving a slider');
  report.playground.spec = await page.$eval('#spec', (e) => e.value);
  report.playground.timing = await page.$eval('#timing', (e) => e.textContent);
  report.playground.error = await page.$eval('#error', (e) => e.textContent);
  report.playground.states = [s0, s1, s2, s3];
  if (report.playground.error) failures.push(`the playground says: ${report.playground.error}`);
  if (!/posterize/.test(report.playground.spec)) failures.push(`the spec lacks the added filter: ${report.playground.spec}`);
  await page.screenshot({ path: path.join(out, 'playground.png') });
  console.log(`playground: ${report.playground.device}; first result in ${report.playground.first_result_s.toFixed(1)} s; spec "${report.playground.spec}"; ${report.playground.timing}`);
});

// 2b. the camera (Chromium's fake one, 1280x720 asked): frames run live on the GPU through
// Engine.live and the page counts frames per second. Headless SwiftShader loses its device on
// any WebGPU canvas (plain JavaScript too), so the page reads the results back here
// (`?readback`); a browser with a display shows them in the WebGPU canvas. SwiftShader runs on
// this machine's CPU cores: the rate says the loop works, not how fast a GPU is.
await withPage(true, async (page) => {
  await page.goto(`${url}/index.html?readback`, { waitUntil: 'load' });
  await page.waitForFunction('window.__playground && window.__playground.ready', { timeout: 120000 });
  await changed(page, '', 'loading (camera test)');
  await page.click('#camera');
  try {
    await page.waitForFunction(() => window.__playground.live.fps > 0, { timeout: 120000, polling: 250 });
  } catch (e) {
    failures.push(`the camera gave no live frames: ${await page.$eval('#error', (el) => el.textContent)}`);
  }
  // two seconds more for a steadier rate
  await new Promise((r) => setTimeout(r, 2000));
  const c = await page.evaluate(() => {
    const l = window.__playground.live;
    const v = document.getElementById('after');
    // the live canvas's pixels (the current frame): not all one colour
    const read = document.createElement('canvas');
    read.width = v.width; read.height = v.height;
    const g = read.getContext('2d');
    g.drawImage(v, 0, 0);
    const d = g.getImageData(0, 0, read.width, read.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4 * 97) seen.add(d[i] << 16 | d[i + 1] << 8 | d[i + 2]);
    return { fps: l.fps, error: l.error, key: l.key, size: [v.width, v.height], hidden: v.hidden, colours: seen.size, timing: document.getElementById('timing').textContent, shown_error: document.getElementById('error').textContent };
  });
  report.camera = c;
  if (c.error || c.shown_error) failures.push(`the camera's chain did not run live: ${c.error} ${c.shown_error}`);
  if (c.hidden || c.colours < 8) failures.push(`the live canvas shows no picture: ${JSON.stringify(c)}`);
  await page.screenshot({ path: path.join(out, 'camera.png') });
  console.log(`camera: ${c.key}, ${c.fps.toFixed(1)} frames/s live on SwiftShader; ${c.timing}`);
});

// 3. no WebGPU: the CPU twins, said so
await withPage(false, async (page) => {
  await page.goto(`${url}/index.html`, { waitUntil: 'load' });
  await page.waitForFunction('window.__playground && window.__playground.ready', { timeout: 120000 });
  await changed(page, '', 'loading without WebGPU');
  report.fallback.device = await page.$eval('#device', (e) => e.textContent);
  report.fallback.timing = await page.$eval('#timing', (e) => e.textContent);
  if (!/CPU/.test(report.fallback.device) || !/CPU/.test(report.fallback.timing)) failures.push(`without WebGPU the page does not say it runs the CPU twins: ${report.fallback.device} / ${report.fallback.timing}`);
  console.log(`without WebGPU: ${report.fallback.device}; ${report.fallback.timing}`);
});

report.failures = failures;
fs.writeFileSync(path.join(out, 'results.json'), JSON.stringify(report, null, 1));
if (failures.length) console.log(`FAILED:\n  ${failures.join('\n  ')}`);
process.exit(failures.length ? 1 : 0);
