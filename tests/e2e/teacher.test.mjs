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

// Press `key` until the focus is on `selector` (at most `limit` presses) and stays there for two
// frames: a change just made re-renders the reader, which can replace the element reached.
async function tabTo(page, selector, key = 'Tab', limit = 400) {
  const focused = () => page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);
  const frames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  for (let i = 0; i < limit; i++) {
    if (await focused()) {
      await frames();
      if (await focused()) return;
      continue;
    }
    await page.keyboard.press(key);
  }
  assert.fail(`${selector} not reached with ${key}`);
}

test('norming: my ratings and two colleagues\' agree with each other and the model as krippendorff and scikit-learn say', async () => {
  const dir = tempDir('norming');
  const { essays, levels, files } = makeClass(dir);
  // Two colleagues: each rates most essays near the model's level (a seeded walk), one as a
  // class ratings file, the other as a Track 1 submission.
  let seed = 11;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const near = (label) => {
    const k = LEVELS.indexOf(label) + (rnd() < 0.3 ? (rnd() < 0.5 ? -1 : 1) : 0);
    return Math.min(4, Math.max(0, k));
  };
  const li = {}; const wang = {};
  for (const e of essays) {
    if (rnd() < 0.85) li[e.id] = near(levels[e.id].classification);
    if (rnd() < 0.85) wang[e.id] = near(levels[e.id].classification);
  }
  const liFile = join(dir, 'li-ratings.json');
  const sha = createHash('sha256').update(readFileSync(files.essays)).digest('hex');
  writeFileSync(liFile, JSON.stringify({ scorebench: 'class-ratings', class: sha, file: 'test_data.json', rater: 'Li',
    levels: Object.fromEntries(Object.entries(li).map(([id, k]) => [id, LEVELS[k]])) }));
  // Named by its file (a Track 1 file names no rater).
  const wangFile = join(dir, 'Wang.json');
  writeFileSync(wangFile, JSON.stringify(Object.entries(wang).map(([id, k]) => ({ id: Number(id), classification: LEVELS[k] }))));

  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await openClass(page, files, '?lang=en');
  // I review twelve essays: the model's level, one better on every third id.
  const mine = {};
  for (const e of essays.slice(0, 12)) {
    const model = LEVELS.indexOf(levels[e.id].classification);
    const k = e.id % 3 === 0 ? Math.max(0, model - 1) : model;
    await page.locator(`[data-essay-id="${e.id}"]`).click();
    await page.selectOption('select[aria-label="teacher level"]', String(k));
    await page.check('input[aria-label=reviewed]');
    await page.locator(`[data-essay-id="${e.id}"].reviewed`).waitFor();
    mine[e.id] = k;
  }
  await page.locator('html[data-saving="0"]').waitFor({ state: 'attached' });

  await page.setInputFiles('[data-testid=colleague-file]', liFile);
  await page.locator('[data-colleague=Li]').waitFor();
  await page.setInputFiles('[data-testid=colleague-file]', wangFile);
  await page.locator('[data-colleague=Wang]').waitFor();
  // A file of another class is refused, naming it.
  const other = join(dir, 'other.json');
  writeFileSync(other, JSON.stringify({ scorebench: 'class-ratings', class: 'f'.repeat(64), file: 'b.json', levels: {} }));
  await page.setInputFiles('[data-testid=colleague-file]', other);
  assert.match(await page.locator('[data-testid=norming-error]').innerText(), /another class file \(b\.json\)/);

  // The reference: the model, me, Li and Wang as rank matrices (essays in id order), through the
  // PyPI packages.
  const model = Object.fromEntries(levels.map((l) => [l.id, LEVELS.indexOf(l.classification)]));
  const ids = essays.map((e) => e.id);
  const row = (r) => ids.map((id) => (id in r ? r[id] : null));
  const grades = [...new Set(essays.map((e) => e.grade))];
  const python = join(process.cwd(), '.venv', 'bin', 'python');
  const reference = JSON.parse(execFileSync(python, ['-c', `
import json, sys, warnings
import numpy as np, krippendorff
from sklearn.metrics import cohen_kappa_score
d = json.load(sys.stdin)
def arr(rows): return np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=float)
def alpha(rows):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try: a = float(krippendorff.alpha(reliability_data=arr(rows), level_of_measurement="ordinal"))
        except ValueError: return None
    return None if np.isnan(a) else a
out = {"pairs": {}, "alpha": {}}
names = ["model", "me", "Li", "Wang"]
for i in range(4):
    for j in range(i + 1, 4):
        both = [(x, y) for x, y in zip(d["rows"][i], d["rows"][j]) if x is not None and y is not None]
        a, b = [x for x, _ in both], [y for _, y in both]
        out["pairs"][names[i] + "|" + names[j]] = {"n": len(both),
            "exact": sum(x == y for x, y in both) / len(both),
            "adjacent": sum(abs(x - y) <= 1 for x, y in both) / len(both),
            "qwk": float(cohen_kappa_score(a, b, labels=[0, 1, 2, 3, 4], weights="quadratic"))}
for g, cols in list(d["groups"].items()) + [("overall", list(range(len(d["rows"][0]))))]:
    sub = [[r[c] for c in cols] for r in d["rows"]]
    out["alpha"][g] = {"teachers": alpha(sub[1:]), "with_model": alpha(sub)}
print(json.dumps(out))
`], { input: JSON.stringify({ rows: [row(model), row(mine), row(li), row(wang)],
    groups: Object.fromEntries(grades.map((g) => [g, ids.flatMap((id, i) => (essays[i].grade === g ? [i] : []))])) }) }).toString());

  const cell = (table, key, metric) => page.locator(`[data-testid=${table}] tr[data-key="${key}"] [data-metric=${metric}]`).getAttribute('data-value');
  for (const [key, want] of Object.entries(reference.pairs)) {
    for (const m of ['n', 'exact', 'adjacent', 'qwk']) {
      assert.equal(JSON.parse(await cell('norming-pairs', key, m)), want[m], `${key} ${m}`);
    }
  }
  for (const [group, want] of Object.entries(reference.alpha)) {
    assert.equal(JSON.parse(await cell('norming-alpha', group, 'alpha_teachers')), want.teachers, `${group} teachers`);
    assert.equal(JSON.parse(await cell('norming-alpha', group, 'alpha_with_model')), want.with_model, `${group} with model`);
  }
  // Disputed essays: widest spread first.
  const spreads = await page.$$eval('[data-testid=norming-disputed] [data-metric=spread]', (els) => els.map((e) => Number(e.dataset.value)));
  assert.ok(spreads.length > 0);
  for (let i = 1; i < spreads.length; i++) assert.ok(spreads[i - 1] >= spreads[i], `${spreads}`);

  // My ratings file names my levels; the CSV export carries every colleague's level; the
  // colleagues survive a reload.
  const [mineFile] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export=ratings]')]);
  const exported = JSON.parse(readFileSync(await mineFile.path(), 'utf8'));
  assert.equal(exported.class, sha);
  assert.deepEqual(exported.levels, Object.fromEntries(Object.entries(mine).map(([id, k]) => [id, LEVELS[k]])));
  const [d] = await Promise.all([page.waitForEvent('download'), page.click('button[data-export=class-csv]')]);
  const header = readFileSync(await d.path(), 'utf8').split('\n')[0];
  assert.ok(header.trimEnd().endsWith(',Li_level,Wang_level'), header);
  await page.locator('[data-testid=norming]').screenshot({ path: join(artifacts, 'norming-en.png') });
  await openClass(page, files, '?lang=zh-CN');
  await page.locator('[data-colleague=Wang]').waitFor();
  assert.match(await page.locator('[data-testid=norming] h3').innerText(), /多位教师/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('keyboard only: a teacher opens the files, reviews ten essays and exports without a pointer', async () => {
  const dir = tempDir('keyboard');
  const { essays, levels, files } = makeClass(dir);
  // Its own profile: the other tests reviewed essays of this same class (a tick would untick).
  const context = await launchBrowser();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // Any pointer or mouse event would be counted.
  await page.addInitScript(() => {
    window.__pointer = 0;
    for (const type of ['pointerdown', 'mousedown', 'touchstart']) {
      addEventListener(type, () => { window.__pointer++; }, true);
    }
  });
  await page.goto(server.url + '?lang=en');
  await page.locator('[data-testid=file-input]').waitFor();
  // Tab to the file input, open the chooser with the space bar.
  await tabTo(page, '[data-testid=file-input]');
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.keyboard.press('Space')]);
  await chooser.setFiles([files.essays, files.levels, files.comments]);
  await page.locator('[data-essay-id]').first().waitFor({ timeout: 60_000 });

  // Focus on the essay list (it takes the focus: tabindex 0).
  await tabTo(page, '.vlist');
  // Ten essays: j opens the next; on every other one Tab to my level and take the best (typed),
  // Tab to "reviewed" and tick it (space); a comment typed on the third.
  const reader = page.locator('[data-testid=essay-reader]');
  const mine = {};
  const order = [];
  for (let i = 0; i < 10; i++) {
    const before = i === 0 ? null : await reader.getAttribute('data-essay');
    await page.keyboard.press('j');
    await page.waitForFunction((b) => {
      const r = document.querySelector('[data-testid=essay-reader]');
      return r && r.dataset.essay !== b;
    }, before);
    const id = await reader.getAttribute('data-essay');
    order.push(id);
    if (i % 2 === 0) {
      // Typing picks the option that starts so ("Excellent · 优秀").
      await tabTo(page, 'select[aria-label="teacher level"]');
      await page.keyboard.type('Ex');
      await page.locator(`[data-essay-id="${id}"][data-teacher-level="${LEVELS[0]}"]`).waitFor();
      mine[id] = 0;
    }
    if (i === 2) {
      await tabTo(page, 'textarea[aria-label="teacher comment"]');
      await page.keyboard.type('键盘写的评语');
    }
    await tabTo(page, 'input[aria-label=reviewed]');
    await page.keyboard.press('Space');
    await page.locator(`[data-essay-id="${id}"].reviewed`).waitFor();
  }
  await page.locator('html[data-saving="0"]').waitFor({ state: 'attached' });

  // Export the class as CSV: back through the page with Shift+Tab to the button, Enter.
  await page.locator('fieldset.exports:not([disabled])').waitFor();
  await tabTo(page, 'button[data-export=class-csv]', 'Shift+Tab');
  const [d] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  const lines = readFileSync(await d.path(), 'utf8').replace(/^\uFEFF/, '').trim().split('\n');
  const header = lines[0].split(',');
  const col = (name) => header.indexOf(name);
  assert.ok(col('teacher_level') > 0 && col('reviewed') > 0 && col('comment') > 0, lines[0]);
  const reviewed = lines.slice(1).map((l) => l.split(',')).filter((c) => c[col('reviewed')] === 'yes');
  assert.deepEqual(reviewed.map((c) => c[0]).sort(), [...order].sort());
  for (const c of reviewed) {
    assert.equal(c[col('teacher_level')], c[0] in mine ? LEVELS[0] : '', `essay ${c[0]}`);
  }
  assert.equal(reviewed.find((c) => c[0] === order[2])[col('comment')], '键盘写的评语');
  assert.equal(await page.evaluate(() => window.__pointer), 0, 'no pointer event');
  assert.equal(essays.length, levels.length);
  assert.deepEqual(errors, []);
  await context.close();
});
