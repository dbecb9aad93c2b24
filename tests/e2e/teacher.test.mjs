// The teacher's class view: a class's essays (the EOTGC test layout, no gold) with a model's
// levels and comments; the distribution, the list, the reader, an adjustment that survives a
// reload, exports with the adjustments, agreement equal to the CLI's metrics on the same pairs;
// the samples layout with gold gives the CLI's ACC_A/Pearson/Score; both languages; the print
// view (one essay per page).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startServer, launchBrowser, tempDir, artifacts, scorebench } from './support.mjs';
import { LEVELS, makeClass } from './classes.mjs';
import { readXlsx } from './xlsx.mjs';

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function openClass(page, files, query = '') {
  await page.goto(server.url + query);
  await page.setInputFiles('input[type=file]', [files.essays, files.levels, files.comments]);
  await page.locator('[data-essay-id]').first().waitFor({ timeout: 60_000 });
}

test('a class without gold: distribution, list, reader, adjustments, exports, agreement', async () => {
  const dir = tempDir('teacher');
  const { essays, levels, comments, files } = makeClass(dir);
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openClass(page, files, '?lang=en');
  assert.match(page.url(), /tab=class/, 'the class view opens by itself');

  // Distribution cells equal the counts from the files.
  const want = {};
  for (const e of essays) {
    const k = `${e.grade}|${levels[e.id].classification}`;
    want[k] = (want[k] ?? 0) + 1;
  }
  const cells = await page.$$eval('[data-testid=class-distribution] [data-grade][data-level][data-count]',
    (els) => els.map((e) => [`${e.dataset.grade}|${e.dataset.level}`, Number(e.dataset.count)]));
  const perGrade = cells.filter(([k]) => !k.startsWith('overall|'));
  assert.equal(perGrade.length, 7 * 5);
  for (const [k, n] of perGrade) assert.equal(n, want[k] ?? 0, k);
  for (const [k, n] of cells.filter(([k]) => k.startsWith('overall|'))) {
    const level = k.split('|')[1];
    assert.equal(n, levels.filter((l) => l.classification === level).length, k);
  }

  // Every essay is listed with its level and comment length; the weakest level comes first.
  const rows = await page.$$eval('[data-essay-id]', (els) => els.map((e) => ({
    id: e.dataset.essayId, grade: e.dataset.grade, level: e.dataset.level, chars: Number(e.dataset.commentChars) })));
  assert.equal(new Set(rows.map((r) => r.id)).size, essays.length);
  for (const r of rows) {
    assert.equal(r.level, levels[r.id].classification);
    assert.equal(r.chars, [...comments[r.id].comment].length);
  }
  assert.equal(rows[0].level, '不合格', 'weakest first');

  // Filters: comments over 250 characters.
  await page.selectOption('select[aria-label=comment]', 'over');
  const over = comments.filter((c) => [...c.comment].length > 250).length;
  assert.equal(await page.locator('[data-essay-id]').count(), over);
  await page.selectOption('select[aria-label=comment]', '');

  // The reader shows the essay; j moves to the next one.
  await page.locator('[data-essay-id="5"]').click();
  const reader = page.locator('[data-testid=essay-reader]');
  assert.ok((await reader.innerText()).includes(essays[5].content.split('\n')[0].slice(0, 20)));
  await page.keyboard.press('j');
  assert.notEqual(await reader.getAttribute('data-essay'), '5');

  // Adjust essay 5: level 优秀, a comment, reviewed; it survives a reload.
  await page.locator('[data-essay-id="5"]').click();
  await page.selectOption('select[aria-label="teacher level"]', '0');
  await page.fill('textarea[aria-label="teacher comment"]', '教师改写的评语');
  await page.locator('textarea[aria-label="teacher comment"]').blur();
  await page.check('input[aria-label=reviewed]');
  // Also review essay 6 without changing its level.
  await page.locator('[data-essay-id="6"]').click();
  await page.check('input[aria-label=reviewed]');
  await page.locator('html[data-saving="0"]').waitFor({ state: 'attached' });
  await page.screenshot({ path: join(artifacts, 'teacher-class-en.png'), fullPage: false });

  await openClass(page, files, '?lang=en');
  await page.locator('[data-essay-id="5"][data-teacher-level="优秀"]').waitFor({ timeout: 10_000 });

  // Agreement on the two reviewed essays equals the CLI's metrics on the same pairs.
  const pairs = [[5, 0], [6, null]].map(([id, teacher]) => {
    const model = LEVELS.indexOf(levels[id].classification);
    return { gold: 4 - (teacher ?? model), pred: 4 - model };
  });
  const pairsFile = join(dir, 'pairs.jsonl');
  writeFileSync(pairsFile, pairs.map((p) => JSON.stringify(p)).join('\n') + '\n');
  const cli = JSON.parse(execFileSync(scorebench, ['score', 'pairs', pairsFile, '--labels', '0,1,2,3,4', '--json'], { encoding: 'utf8' }));
  const agreement = page.locator('[data-testid=agreement]');
  assert.equal(await agreement.getAttribute('data-n'), '2');
  const value = async (m) => JSON.parse(await agreement.locator(`[data-metric=${m}]`).getAttribute('data-value'));
  assert.equal(await value('exact'), cli.overall.metrics.accuracy);
  assert.equal(await value('qwk'), cli.overall.metrics.qwk);

  // Exports carry the adjustments.
  const download = async (name) => {
    const [d] = await Promise.all([page.waitForEvent('download'), page.click(`button[data-export=${name}]`)]);
    return readFileSync(await d.path(), 'utf8');
  };
  const csv = await download('class-csv');
  assert.ok(csv.startsWith('\ufeffid,grade,title,model_level'), 'CSV with a BOM');
  assert.ok(csv.split('\n').some((l) => l.startsWith('5,') && l.includes('教师改写的评语') && l.includes(',优秀,') && l.endsWith(',yes')));
  // The XLSX (written by its own wasm module, loaded only now) has the CSV's cells: read both
  // back and compare cell by cell; essay 5 carries the teacher's level, comment and mark.
  const [xd] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export=class-xlsx]')]);
  assert.match(xd.suggestedFilename(), /-class\.xlsx$/);
  const sheet = readXlsx(readFileSync(await xd.path()));
  const csvRows = await page.evaluate((text) => {
    // The CSV parsed by the browser-independent rules of RFC 4180 (quotes, doubled quotes).
    const rows = []; let row = []; let cell = ''; let quoted = false;
    for (let i = 0; i < text.length; i += 1) {
      const ch = text[i];
      if (quoted) {
        if (ch === '"' && text[i + 1] === '"') { cell += '"'; i += 1; } else if (ch === '"') quoted = false; else cell += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ',') { row.push(cell); cell = ''; } else if (ch === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; } else if (ch !== '\r') cell += ch;
    }
    if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
    return rows;
  }, csv.replace(/^\ufeff/, ''));
  assert.equal(sheet.length, essays.length + 1);
  assert.deepEqual(sheet.map((r) => r.map(String)), csvRows);
  const x5 = sheet.find((r) => r[0] === 5);
  const col = (name) => sheet[0].indexOf(name);
  assert.equal(x5[col('teacher_level')], '优秀');
  assert.equal(x5[col('comment')], '教师改写的评语');
  assert.equal(x5[col('comment_chars')], 7);
  assert.equal(x5[col('reviewed')], 'yes');
  const t1 = JSON.parse(await download('track1'));
  assert.equal(t1.length, essays.length);
  assert.equal(t1.find((r) => r.id === 5).classification, '优秀');
  const t2 = JSON.parse(await download('track2'));
  assert.equal(t2.find((r) => r.id === 5).comment, '教师改写的评语');

  // Print: a summary page then one essay per page. The browser's own print is counted, not run
  // (it would still be printing when the PDF below is asked for): the button must call it once
  // the print view is in the page, and the PDF prints that view's print media.
  await page.evaluate(() => {
    window.printed = [];
    window.print = () => window.printed.push(document.querySelectorAll('.print-essay').length);
  });
  await page.click('button[data-action=print]');
  await page.waitForFunction(() => window.printed.length > 0);
  assert.deepEqual(await page.evaluate(() => window.printed), [essays.length], 'print() called once, with every essay in the page');
  assert.equal(await page.locator('.print-essay').count(), essays.length);
  await page.emulateMedia({ media: 'print' });
  const pdf = await page.pdf({ path: join(artifacts, 'teacher-print.pdf'), format: 'A4' });
  const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;
  assert.ok(pages >= essays.length + 1, `one essay per page (${pages} pages)`);
  await page.emulateMedia({ media: 'screen' });

  // Chinese interface.
  await page.click('button.lang-switch');
  assert.match(page.url(), /lang=zh-CN/);
  assert.equal(await page.locator('button[data-tab=class]').innerText(), '班级');
  await page.locator('[data-essay-id="5"]').click();
  await page.screenshot({ path: join(artifacts, 'teacher-reader-zh.png'), fullPage: false });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the reader waits for the saved adjustments, so both they and a quick change are kept', async () => {
  const dir = tempDir('teacher-early');
  const { files } = makeClass(dir);
  // Its own profile: the other tests saved adjustments for this same class.
  const context = await launchBrowser();
  try {
    const first = await context.newPage();
    await openClass(first, files, '?lang=en');
    await first.locator('[data-essay-id="6"]').click();
    await first.check('input[aria-label=reviewed]');
    await first.locator('html[data-saving="0"]').waitFor({ state: 'attached' });
    await first.close();

    // A slow store: every IndexedDB read answers 5 s late, so a quick teacher comes before the
    // saved adjustments (what a loaded machine does): the controls wait for them.
    const slow = await context.newPage();
    await slow.addInitScript(() => {
      const get = IDBObjectStore.prototype.get;
      IDBObjectStore.prototype.get = function (...args) {
        const request = get.apply(this, args);
        const setter = Object.getOwnPropertyDescriptor(IDBRequest.prototype, 'onsuccess').set;
        Object.defineProperty(request, 'onsuccess', {
          set(f) { setter.call(request, f && ((ev) => setTimeout(() => f.call(request, ev), 5000))); },
        });
        return request;
      };
    });
    await openClass(slow, files, '?lang=en');
    await slow.locator('[data-essay-id="5"]').click();
    const level = slow.locator('select[aria-label="teacher level"]');
    assert.equal(await level.count(), 0, 'the reader and its controls wait for the saved adjustments');
    assert.notEqual(await slow.locator('html').getAttribute('data-saving'), '0', 'the load counts as under way');
    await slow.selectOption('select[aria-label="teacher level"]', '0', { timeout: 20_000 });
    await slow.locator('html[data-saving="0"]').waitFor({ state: 'attached', timeout: 20_000 });
    await slow.locator('[data-essay-id="5"][data-teacher-level="优秀"]').waitFor({ timeout: 5_000 });
    await slow.locator('[data-essay-id="6"].reviewed').waitFor({ timeout: 5_000 });
    // Saved under the essays file's SHA-256 only (never under a key not known yet).
    const keys = await slow.evaluate(() => new Promise((resolve, reject) => {
      const open = indexedDB.open('scorebench', 1);
      open.onsuccess = () => {
        const request = open.result.transaction('adjustments').objectStore('adjustments').getAllKeys();
        request.onsuccess = () => resolve(request.result);
        request.onerror = reject;
      };
      open.onerror = reject;
    }));
    const sha = createHash('sha256').update(readFileSync(files.essays)).digest('hex');
    assert.deepEqual(keys, [sha]);
    await slow.close();

    const again = await context.newPage();
    await openClass(again, files, '?lang=en');
    await again.locator('[data-essay-id="5"][data-teacher-level="优秀"]').waitFor({ timeout: 10_000 });
    await again.locator('[data-essay-id="6"].reviewed').waitFor({ timeout: 10_000 });
  } finally {
    await context.close();
  }
});

test('a class with gold (samples layout): ACC_A, Pearson and Score equal the CLI', async () => {
  const dir = tempDir('teacher-gold');
  const { files } = makeClass(dir, true);
  const page = await browser.newPage();
  await openClass(page, files, '?lang=zh-CN');
  const scores = page.locator('[data-testid=class-gold-scores]');
  await scores.waitFor();
  const cli = JSON.parse(execFileSync(scorebench, ['score', 'eotgc', '--gold', files.essays, files.levels, '--json'], { encoding: 'utf8' }));
  for (const m of ['acc_a', 'pearson', 'score']) {
    const v = JSON.parse(await scores.locator(`[data-metric=${m}]`).getAttribute('data-value'));
    assert.equal(v, cli.overall.metrics[m], m);
  }
  const gold = await page.$$eval('[data-essay-id][data-gold-level]', (els) => els.length);
  assert.equal(gold, 185, 'every row shows the gold level');
  await page.screenshot({ path: join(artifacts, 'teacher-class-zh.png'), fullPage: false });
  // The charts speak Chinese too, and their SVG text asks for a CJK font first.
  await page.click('button[data-tab=charts]');
  const chart = page.locator('figure.chart[data-chart^="eotgc-levels"]').first();
  await chart.waitFor();
  const svg = await chart.locator('.chart-svg').innerHTML();
  assert.ok(svg.includes('标准') && svg.includes('预测') && svg.includes('年级'), 'legend and title in Chinese');
  assert.match(svg, /font-family="Noto Sans CJK SC/);
  await chart.screenshot({ path: join(artifacts, 'teacher-chart-zh.png') });
  await page.close();
});
