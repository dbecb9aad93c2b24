// The Run panel: the server (holding a key) runs MSQA against a mock OpenAI-compatible
// upstream on 127.0.0.1, the page shows progress and opens the finished run in the workbench,
// whose accuracy equals the official score.json of the golden case. The key never reaches the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  launchBrowser, tempDir, artifacts, root, scoreJson, startServer, startMockUpstream, upstreamToml,
} from './support.mjs';

const KEY = 'sk-e2e-secret-0123456789abcdef';
const CASE = join(root, 'tests', 'golden', 'msqa', 'msqa_01_basic_yes_no');
const SUFFIX = '\nYou must answer the question with YES or NO. Do not include other words.';
let mock;
let server;
let browser;
let upstreamCalls = 0;
let sawKey = true;

function startMock() {
  const table = JSON.parse(readFileSync(join(CASE, 'mock_api.json'), 'utf8')).api_responses_by_true_false_question;
  return startMockUpstream((request, req) => {
    upstreamCalls += 1;
    sawKey = sawKey && req.headers.authorization === `Bearer ${KEY}`;
    const reply = table[request.messages.at(-1).content.replace(SUFFIX, '')];
    return {
      content: reply.content, reasoning_content: reply.reasoning_content, finish_reason: reply.finish_reason,
      usage: { prompt_tokens: 10, completion_tokens: reply.completion_tokens, total_tokens: 10 + reply.completion_tokens },
    };
  });
}

before(async () => {
  mock = await startMock();
  server = await startServer({
    upstreams: upstreamToml({ name: 'mock', base_url: mock.url, api_key_env: 'E2E_UPSTREAM_KEY', models: ['test-model'], max_concurrency: 4 }),
    env: { E2E_UPSTREAM_KEY: KEY },
  });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
  mock?.close();
});

test('a run started from the page finishes and opens with the official accuracy', async () => {
  const expected = JSON.parse(readFileSync(join(CASE, 'expected.json'), 'utf8'));
  const page = await browser.newPage();
  await page.goto(server.url);
  const panel = page.locator('[data-testid="run-panel"]');
  await panel.waitFor();
  await panel.locator('summary').click();
  await page.locator('select[aria-label="benchmark"] option[value="msqa"]').waitFor({ state: 'attached' });
  await page.selectOption('select[aria-label="benchmark"]', 'msqa');
  await page.locator('select[aria-label="model"] option[value="test-model"]').waitFor({ state: 'attached' });
  await page.setInputFiles('input[aria-label="dataset"]', join(CASE, 'dataset', 'MSQA_Dataset.json'));
  await page.locator('label[data-field="dataset"][data-set="true"]').waitFor();
  await page.click('[data-testid="start-run"]');
  const progress = page.locator('[data-testid="run-progress"][data-state="finished"]');
  await progress.waitFor({ timeout: 60_000 });
  assert.equal(await progress.getAttribute('data-done'), await progress.getAttribute('data-total'));
  await page.click('[data-testid="open-run"]');
  const cell = page.locator('section.card[data-benchmark="msqa"] [data-metric="accuracy"][data-subset="overall"]');
  await cell.waitFor({ timeout: 30_000 });
  assert.equal(JSON.parse(await cell.getAttribute('data-value')), expected.score_json.evaluation.overall_score);
  assert.equal(upstreamCalls, expected.api_call_count, 'one upstream call per record');
  assert.ok(sawKey, 'the server sent the key upstream');
  const html = await page.content();
  assert.ok(!html.includes(KEY), 'the key never reaches the page');
  assert.ok(!html.includes(`127.0.0.1:${mock.port}`), 'the upstream URL never reaches the page');
  const models = await (await page.request.get(new URL('/api/v1/models', server.url).href)).text();
  assert.ok(!models.includes(KEY) && !models.includes('127.0.0.1'), 'the models list names models only');
  await page.screenshot({ path: join(artifacts, 'run-msqa.png'), fullPage: true });

  // The same run again is answered from the cache: no new upstream call.
  await page.click('[data-testid="start-run"]');
  await page.locator('[data-testid="run-progress"][data-state="finished"]').waitFor({ timeout: 60_000 });
  assert.equal(upstreamCalls, expected.api_call_count, 'a repeated run costs no upstream call');
  await page.close();
});

// An SGI-Bench deep-research judge run started from the page; the server is killed (SIGKILL)
// while the second judge call is in flight, started again on the same database, and the run is
// resumed by its id from the page: every judge prompt is answered once (the first reply comes
// from the cache), and the finished run opens in the workbench with `scorebench score`'s numbers.
const DR_CASE = join(root, 'tests', 'golden', 'sgibench', 'deep_research', 'dr_01_basic_exact_match');

function startJudgeMock() {
  const records = JSON.parse(readFileSync(join(DR_CASE, 'step2_input.json'), 'utf8'));
  const replies = JSON.parse(readFileSync(join(DR_CASE, 'mock_llm.json'), 'utf8'));
  const judge = { asked: {}, answered: {}, held: [], hold: true };
  return startMockUpstream((request, _req, send) => {
    const prompt = request.messages.at(-1).content;
    const { idx } = records.find((r) => prompt.includes(r.question));
    judge.asked[idx] = (judge.asked[idx] ?? 0) + 1;
    const answer = () => {
      judge.answered[idx] = (judge.answered[idx] ?? 0) + 1;
      send({ content: replies[idx].judge_output, usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } });
    };
    // The first call is answered; later ones wait while `hold` is set.
    const answeredSoFar = Object.values(judge.answered).reduce((a, b) => a + b, 0);
    if (judge.hold && answeredSoFar >= 1) judge.held.push(answer);
    else answer();
  }).then((mock) => Object.assign(judge, mock));
}

async function until(what, check, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('an SGI deep-research judge run survives a killed server and resumes by id from the page', async () => {
  const judge = await startJudgeMock();
  const dir = tempDir('run-resume');
  const serve = () => startServer({
    dir,
    upstreams: upstreamToml({ name: 'judge', base_url: judge.url, api_key_env: 'E2E_JUDGE_KEY', models: ['judge-model'], max_retries: 0 }),
    env: { E2E_JUDGE_KEY: KEY },
  });
  let first = await serve();
  const page = await browser.newPage();
  try {
    await page.goto(first.url);
    await page.locator('[data-testid="run-panel"] summary').click();
    await page.locator('select[aria-label="benchmark"] option[value="sgi-deep-research"]').waitFor({ state: 'attached' });
    await page.selectOption('select[aria-label="benchmark"]', 'sgi-deep-research');
    await page.locator('select[aria-label="judge_model"] option[value="judge-model"]').waitFor({ state: 'attached' });
    await page.setInputFiles('input[aria-label="log"]', join(DR_CASE, 'step2_input.json'));
    await page.fill('input[aria-label="workers"]', '1');
    await page.locator('label[data-field="log"][data-set="true"]').waitFor();
    await page.click('[data-testid="start-run"]');
    const running = page.locator('[data-testid="run-progress"]');
    await running.waitFor();
    const id = await running.getAttribute('data-run');
    await until('the second judge call', () => judge.held.length === 1);

    // Killed mid-run: the first reply is cached, the second call is in flight.
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    judge.hold = false;
    const second = await serve();
    first = null;
    try {
      await page.goto(second.url);
      await page.locator('[data-testid="run-panel"] summary').click();
      await page.fill('input[aria-label="run id"]', id);
      await page.click('[data-testid="find-run"]');
      await page.locator(`[data-testid="run-progress"][data-run="${id}"][data-state="interrupted"]`).waitFor();
      await page.click('[data-testid="resume-run"]');
      await page.locator(`[data-testid="run-progress"][data-run="${id}"][data-state="finished"]`).waitFor({ timeout: 60_000 });

      // No prompt whose reply was received is sent again; each is answered once.
      assert.deepEqual(judge.answered, { DR_001: 1, DR_002: 1 });
      assert.equal(judge.asked.DR_001, 1, 'the cached reply is not asked again');

      await page.click('[data-testid="open-run"]');
      const log = join(dir, 'runs', id, 'step2_log.json');
      const expected = scoreJson(['sgi-deep-research', log]).overall.metrics;
      for (const metric of ['exact_match', 'step_level_accuracy']) {
        const cell = page.locator(`section.card[data-benchmark="sgi-deep-research"] [data-metric="${metric}"][data-subset="overall"]`);
        await cell.waitFor({ timeout: 30_000 });
        assert.equal(typeof expected[metric], 'number', metric);
        assert.equal(JSON.parse(await cell.getAttribute('data-value')), expected[metric], metric);
      }
      assert.ok(!(await page.content()).includes(KEY), 'the key never reaches the page');
      await page.screenshot({ path: join(artifacts, 'run-sgi-resume.png'), fullPage: true });
    } finally {
      second.child.kill('SIGTERM');
    }
  } finally {
    first?.child.kill('SIGKILL');
    judge.close();
    await page.close();
  }
});

// SAS-Bench step 1 started from the page with a dataset folder's files (error_type.jsonl and
// three gold files); the mock answers the prompts the official step 1 sends with the replies
// recorded for them (server/tests/data/sasbench_step1/zero_shot, made by the official script),
// and holds the sixth call; the server is killed (SIGKILL) with that call in flight, started
// again, and the run resumed by id from the page: no reply received is asked for again, the
// files equal the official step 1's byte for byte, and the workbench shows `scorebench score
// sasbench --dataset`'s numbers.
const SAS_CASE = join(root, 'tests', 'golden', 'sasbench', 'case_10', 'datasets');
const SAS_FIXTURE = join(root, 'server', 'tests', 'data', 'sasbench_step1', 'zero_shot');
const SAS_FILES = ['error_type.jsonl', '7_Math_ShortAns.jsonl', '10_Math_gapfilling.jsonl', '11_Chemistry_gapfilling.jsonl'];

function startSasMock() {
  const calls = readFileSync(join(SAS_FIXTURE, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const replies = new Map(calls.map((c) => [c.prompt, c.reply]));
  const mock = { asked: new Map(), answered: new Map(), unknown: 0, held: [], hold: true, calls: calls.length };
  return startMockUpstream((request, _req, send) => {
    const prompt = request.messages.at(-1).content;
    mock.asked.set(prompt, (mock.asked.get(prompt) ?? 0) + 1);
    if (!replies.has(prompt)) mock.unknown += 1;
    const answer = () => {
      mock.answered.set(prompt, (mock.answered.get(prompt) ?? 0) + 1);
      send(replies.get(prompt) ?? 'YES');
    };
    const answeredSoFar = [...mock.answered.values()].reduce((a, b) => a + b, 0);
    if (mock.hold && answeredSoFar >= 5) mock.held.push(answer);
    else answer();
  }).then((upstream) => Object.assign(mock, upstream));
}

test('a SAS-Bench step-1 run from the page survives a killed server and writes the official files', async () => {
  const mock = await startSasMock();
  const dir = tempDir('run-sas');
  const serve = () => startServer({
    dir,
    upstreams: upstreamToml({ name: 'model', base_url: mock.url, api_key_env: 'E2E_JUDGE_KEY', models: ['test-model'], max_retries: 0 }),
    env: { E2E_JUDGE_KEY: KEY },
  });
  let first = await serve();
  const page = await browser.newPage();
  try {
    await page.goto(first.url);
    await page.locator('[data-testid="run-panel"] summary').click();
    await page.locator('select[aria-label="benchmark"] option[value="sasbench"]').waitFor({ state: 'attached' });
    await page.selectOption('select[aria-label="benchmark"]', 'sasbench');
    await page.locator('select[aria-label="model"] option[value="test-model"]').waitFor({ state: 'attached' });
    await page.setInputFiles('input[aria-label="dataset"]', SAS_FILES.map((f) => join(SAS_CASE, f)));
    await page.fill('input[aria-label="workers"]', '1');
    await page.locator('label[data-field="dataset"][data-set="true"]').waitFor();
    await page.click('[data-testid="start-run"]');
    const running = page.locator('[data-testid="run-progress"]');
    await running.waitFor();
    const id = await running.getAttribute('data-run');
    await until('the sixth call', () => mock.held.length === 1);

    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    mock.hold = false;
    const second = await serve();
    first = null;
    try {
      await page.goto(second.url);
      await page.locator('[data-testid="run-panel"] summary').click();
      await page.fill('input[aria-label="run id"]', id);
      await page.click('[data-testid="find-run"]');
      await page.locator(`[data-testid="run-progress"][data-run="${id}"][data-state="interrupted"]`).waitFor();
      await page.click('[data-testid="resume-run"]');
      await page.locator(`[data-testid="run-progress"][data-run="${id}"][data-state="finished"]`).waitFor({ timeout: 60_000 });

      assert.equal(mock.unknown, 0, 'every prompt is one the official step 1 sends');
      assert.equal(mock.answered.size, mock.calls, 'every prompt answered');
      for (const [prompt, n] of mock.answered) assert.equal(n, 1, `answered twice: ${prompt.slice(0, 40)}`);
      const askedTwice = [...mock.asked.values()].filter((n) => n === 2).length;
      assert.equal(askedTwice, 1, 'only the call in flight at the kill is asked again');

      const out = join(dir, 'runs', id);
      const scored = [];
      for (const name of ['7_Math_ShortAns_scored.jsonl', '10_Math_gapfilling_scored.jsonl', '11_Chemistry_gapfilling_scored.jsonl']) {
        assert.equal(readFileSync(join(out, name), 'utf8'), readFileSync(join(SAS_FIXTURE, 'out', name), 'utf8'), name);
        scored.push(join(out, name));
      }
      await page.click('[data-testid="open-run"]');
      // The reloaded page no longer holds the dataset files the form sent: the user adds them.
      await page.setInputFiles('[data-testid="file-input"]', SAS_FILES.map((f) => join(SAS_CASE, f)));
      const expected = scoreJson(['sasbench', '--dataset', SAS_CASE, ...scored]).overall.metrics;
      for (const metric of ['qwk', 'ccs', 'ecs']) {
        const cell = page.locator(`section.card[data-benchmark="sasbench"] [data-metric="${metric}"][data-subset="overall"]`);
        await cell.waitFor({ timeout: 30_000 });
        assert.equal(typeof expected[metric], 'number', metric);
        assert.equal(JSON.parse(await cell.getAttribute('data-value')), expected[metric], metric);
      }
      assert.ok(!(await page.content()).includes(KEY), 'the key never reaches the page');
      await page.screenshot({ path: join(artifacts, 'run-sasbench-resume.png'), fullPage: true });
    } finally {
      second.child.kill('SIGTERM');
    }
  } finally {
    first?.child.kill('SIGKILL');
    for (const answer of mock.held) answer();
    mock.close();
    await page.close();
  }
});
