// The teacher's class view on a phone (390×844, touch), a tablet (768×1024, touch) and a laptop
// (1280×900): open the class, open an essay where it is tapped (nothing lies over the list),
// set a level and a comment, next and previous, back to the list where it was (scroll position
// and filter kept); nothing is wider than the screen, every control is at least 24×24 CSS px on
// touch screens, and axe-core finds no WCAG 2.1 A/AA violation. Screenshots: phone list, phone
// reader, tablet.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launchDevice, tempDir, artifacts, root } from './support.mjs';
import { LEVELS, makeClass } from './classes.mjs';

const AXE = join(root, 'tools', 'node_modules', 'axe-core', 'axe.min.js');
const WCAG21_A_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

/** axe-core's WCAG 2.1 A/AA violations on the page as it is now, one line each. */
async function axeViolations(page) {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate((tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags } }), WCAG21_A_AA);
  return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

/** Visible controls smaller than 24×24 CSS px (WCAG 2.2 target size) inside `scope`. */
async function smallTargets(page, scope) {
  return page.$$eval(`${scope} button, ${scope} select, ${scope} input, ${scope} textarea`, (els) => els
    .filter((e) => e.offsetParent !== null || getComputedStyle(e).position === 'fixed')
    .map((e) => [e, e.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && (r.width < 24 || r.height < 24))
    .map(([e, r]) => `${e.tagName.toLowerCase()}[${e.getAttribute('aria-label') ?? e.textContent.trim()}] ${Math.round(r.width)}×${Math.round(r.height)}`));
}

const DEVICES = [
  { name: 'phone', width: 390, height: 844, touch: true, lang: 'zh-CN' },
  { name: 'tablet', width: 768, height: 1024, touch: true, lang: 'en' },
  { name: 'laptop', width: 1280, height: 900, touch: false, lang: 'en' },
];

for (const device of DEVICES) {
  test(`the class view on a ${device.name} (${device.width}×${device.height})`, async () => {
    const { essays, levels, files } = makeClass(tempDir(`devices-${device.name}`));
    const { browser, context } = await launchDevice({ ...device, injects: true });
    try {
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${server.url}?lang=${device.lang}`);
      await page.setInputFiles('input[type=file]', [files.essays, files.levels, files.comments]);
      await page.locator('[data-essay-id]').first().waitFor({ timeout: 60_000 });
      const wide = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      assert.deepEqual(wide, [device.width, device.width], 'nothing is wider than the screen');

      // A filter and a scrolled list: both are where they were when the reader closes.
      await page.selectOption('select[aria-label=comment]', 'over');
      const list = page.locator('.vlist');
      await list.scrollIntoViewIfNeeded();
      await list.evaluate((el) => { el.scrollTop = 170; });
      await page.waitForTimeout(100);
      const scrolled = await list.evaluate((el) => el.scrollTop);
      // A row shown in the list's box, below its first.
      const id = await list.evaluate((el) => {
        const box = el.getBoundingClientRect();
        const inside = [...el.querySelectorAll('[data-essay-id]')].filter((r) => {
          const b = r.getBoundingClientRect();
          return b.top >= box.top && b.bottom <= Math.min(box.bottom, window.innerHeight);
        });
        return inside[Math.min(2, inside.length - 1)].dataset.essayId;
      });
      const row = page.locator(`[data-essay-id="${id}"]`);
      const box = await row.boundingBox();
      const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('[data-essay-id]')?.dataset.essayId,
        [box.x + box.width / 2, box.y + box.height / 2]);
      assert.equal(hit, id, 'the essay row takes the tap (nothing lies over the list)');
      if (device.name === 'phone') await page.screenshot({ path: join(artifacts, 'devices-phone-list.png') });
      if (device.touch) await row.tap(); else await row.click();
      const reader = page.locator('[data-testid=essay-reader]');
      await reader.waitFor();
      assert.equal(await reader.getAttribute('data-essay'), id);
      const readerBox = await reader.boundingBox();
      const listBox = await page.locator('.class-list').boundingBox();
      if (device.name === 'phone') {
        assert.ok(readerBox.width >= device.width - 1 && readerBox.height >= device.height - 1, 'the reader is a screen of its own');
        await page.screenshot({ path: join(artifacts, 'devices-phone-reader.png') });
      } else {
        const apart = readerBox.x >= listBox.x + listBox.width || readerBox.y >= listBox.y + listBox.height;
        assert.ok(apart, `the reader does not cover the list (${JSON.stringify([readerBox, listBox])})`);
        if (device.name === 'tablet') await page.screenshot({ path: join(artifacts, 'devices-tablet.png') });
      }

      // A level and a comment on this essay; next and previous come back to it.
      await page.selectOption('select[aria-label="teacher level"]', '0');
      await page.fill('textarea[aria-label="teacher comment"]', '手机上写的评语');
      await page.locator('textarea[aria-label="teacher comment"]').blur();
      await page.locator('html[data-saving="0"]').waitFor({ state: 'attached' });
      const next = reader.locator('.nav button').filter({ hasText: device.lang === 'en' ? 'next' : '下一篇' });
      const previous = reader.locator('.nav button').filter({ hasText: device.lang === 'en' ? 'previous' : '上一篇' });
      if (device.touch) await next.tap(); else await next.click();
      await page.waitForFunction((was) => document.querySelector('[data-testid=essay-reader]')?.dataset.essay !== was, id);
      if (device.touch) await previous.tap(); else await previous.click();
      await page.waitForFunction((was) => document.querySelector('[data-testid=essay-reader]')?.dataset.essay === was, id);
      assert.equal(await page.inputValue('textarea[aria-label="teacher comment"]'), '手机上写的评语');

      if (device.touch) {
        assert.deepEqual(await smallTargets(page, '[data-testid=essay-reader]'), [], 'reader controls are at least 24×24');
      }
      assert.deepEqual(await axeViolations(page), [], `axe-core, reader open (${device.name})`);

      if (device.name === 'phone') {
        // Back (the reader's button: a history entry, so the system's back does the same).
        await reader.locator('[data-action=back-to-list]').tap();
        await reader.waitFor({ state: 'detached' });
        assert.equal(await list.evaluate((el) => el.scrollTop), scrolled, 'the list is where it was');
        assert.equal(await page.inputValue('select[aria-label=comment]'), 'over', 'the filter is kept');
        await page.locator(`[data-essay-id="${id}"][data-teacher-level="${LEVELS[0]}"]`).waitFor();
        // The system's back closes it too.
        await page.locator(`[data-essay-id="${id}"]`).tap();
        await reader.waitFor();
        await page.goBack();
        await reader.waitFor({ state: 'detached' });
        assert.match(page.url(), /tab=class/, 'still the class view');
        assert.deepEqual(await smallTargets(page, '.class-panel'), [], 'list controls are at least 24×24');
        assert.deepEqual(await axeViolations(page), [], 'axe-core, list (phone)');
      }
      assert.equal(levels.length, essays.length);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });
}

// The SAS-Bench paper table (12 files + Avg.) is wider than a phone: it scrolls in its own box,
// its first column and its Avg. column stay in view.
test('the SAS-Bench paper table on a phone keeps its first and Avg. columns in view', async () => {
  const src = join(root, 'tests', 'golden', 'sasbench', 'case_24');
  const preds = readdirSync(join(src, 'datasets_GoldenModel_Scored')).filter((f) => f.endsWith('_prediction.jsonl'));
  const { browser, context } = await launchDevice({ width: 390, height: 844, touch: true });
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}?lang=en`);
    await page.setInputFiles('input[type=file]', [
      ...preds.map((f) => join(src, 'datasets_GoldenModel_Scored', f)),
      join(src, 'datasets', 'error_type.jsonl'),
    ]);
    const box = page.locator('.report-table').first();
    // Every file's column is in (the corner, 12 files, Avg.): the table comes in as files are read.
    await page.waitForFunction(() => document.querySelectorAll('.report-table thead th').length === 14
      && document.querySelector('.report-table td.summary[data-metric="qwk"]'), null, { timeout: 60_000 });
    assert.deepEqual(await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]), [390, 390]);
    await page.waitForFunction(() => {
      const el = document.querySelector('.report-table');
      return el.scrollWidth > el.clientWidth;
    }, null, { timeout: 10_000 });
    for (const at of [0.5, 1]) {
      const edges = await box.evaluate((el, at) => {
        el.scrollLeft = (el.scrollWidth - el.clientWidth) * at;
        const b = el.getBoundingClientRect();
        const first = el.querySelector('tbody th[scope=row]').getBoundingClientRect();
        const avg = el.querySelector('td.summary').getBoundingClientRect();
        return { box: [b.left, b.right], first: [first.left, first.right], avg: [avg.left, avg.right] };
      }, at);
      assert.ok(Math.abs(edges.first[0] - edges.box[0]) < 2, `the first column stays at the left (${JSON.stringify(edges)})`);
      assert.ok(edges.avg[1] <= edges.box[1] + 1 && edges.avg[0] >= edges.box[0], `Avg. stays in view (${JSON.stringify(edges)})`);
    }
  } finally {
    await browser.close();
  }
});
