// Opens a jfrbpf flame graph in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core),
// takes a screenshot, then uses it as a person would, printing what the page shows after each step:
//   box <step> <name>         a box with a label (the page lists those in #frames, with their position)
//   root <step> <tooltip of the root box>
//   matched <text>            the search result line
//   highlight <r,g,b>         the canvas colour inside the first box matching the search
//   zoom <box width> <graph width>                                range <selected time range text>
//   error <message>           a script error in the page
// Usage: node check_flamegraph.mjs PAGE.html SHOT.png SEARCH ZOOM_NAME THREAD_PREFIX DRAG_FROM DRAG_TO
import { chromium } from 'playwright-core';

const [page_, shot, search, zoomName, threadPrefix, dragFrom, dragTo] = process.argv.slice(2);
const userDataDir = process.env.JFRBPF_CHROMIUM_PROFILE;
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.JFRBPF_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1200, height: 640 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
    '--disable-component-update', '--disable-sync'],
});
const out = [];
try {
  const page = context.pages()[0] || await context.newPage();
  page.on('pageerror', (e) => out.push('error ' + e.message.split('\n')[0]));
  // Self-contained means no request ever leaves the file.
  await page.route('**/*', (route) => {
    if (route.request().url().startsWith('file:')) return route.continue();
    out.push('error network request to ' + route.request().url());
    return route.abort();
  });
  await page.goto('file://' + page_);
  await page.waitForSelector('#frames li', { state: 'attached' });

  const boxes = async (step) => {
    for (const text of await page.locator('#frames li').allTextContents()) out.push('box ' + step + ' ' + text);
  };
  // The middle of the first box named `name` on the canvas, in page coordinates.
  const centre = async (name, where = '') => {
    const canvas = await page.locator('#flame').boundingBox();
    const item = await page.locator('#frames li' + where).filter({ hasText: name }).first().evaluate(
      (li) => ({ x: Number(li.dataset.x), y: Number(li.dataset.y), w: Number(li.dataset.w) }));
    return { x: canvas.x + item.x + item.w / 2, y: canvas.y + item.y + 8, w: item.w };
  };
  const root = async (step) => {
    const at = await centre('all', '[data-n="0"]');
    await page.mouse.move(at.x, at.y);
    out.push('root ' + step + ' ' + (await page.locator('#tooltip').textContent()).replace(/\n/g, ' | '));
    await page.mouse.move(1, 1);
  };

  out.push('info ' + await page.locator('#info').textContent());
  await boxes('load');
  await root('load');
  await page.screenshot({ path: shot, fullPage: true });

  await page.fill('#search', search);
  out.push('matched ' + await page.locator('#matched').textContent());
  const hit = await page.locator('#frames li').filter({ hasText: search }).first().evaluate((li) => {
    const ratio = window.devicePixelRatio || 1;
    const x = (Number(li.dataset.x) + 1) * ratio, y = (Number(li.dataset.y) + 2) * ratio;  // left of the label
    const pixel = document.getElementById('flame').getContext('2d').getImageData(x, y, 1, 1).data;
    return pixel[0] + ',' + pixel[1] + ',' + pixel[2];
  });
  out.push('highlight ' + hit);
  await page.fill('#search', '');

  const target = await centre(zoomName);
  await page.mouse.click(target.x, target.y);
  const zoomed = await centre(zoomName);
  const canvas = await page.locator('#flame').boundingBox();
  out.push('zoom ' + Math.round(zoomed.w) + ' ' + Math.round(canvas.width));
  await boxes('zoom');
  await page.keyboard.press('Escape');

  const options = await page.locator('#thread option').allTextContents();
  const label = options.find((o) => o.startsWith(threadPrefix));
  await page.selectOption('#thread', { label });
  await boxes('thread');
  await root('thread');
  await page.click('#reset');

  const timeline = await page.locator('#timeline').boundingBox();
  const y = timeline.y + timeline.height / 2;
  await page.mouse.move(timeline.x + timeline.width * Number(dragFrom), y);
  await page.mouse.down();
  await page.mouse.move(timeline.x + timeline.width * Number(dragTo), y, { steps: 5 });
  await page.mouse.up();
  out.push('range ' + await page.locator('#range').textContent());
  await boxes('range');
  await root('range');
} finally {
  console.log(out.join('\n'));  // what was seen so far, also when a step failed
  await context.close();
}
