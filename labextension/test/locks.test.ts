// Unit tests of the site's locks as the lab shows them (src/runs/locks.ts): the server's answer
// checked field by field, the values a lock allows, clamping, the Default approval mode's schema
// held to the lock, and the request (a 404 or an error: no locks). On Node's own test runner.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { ServerConnection } from '@jupyterlab/services';
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import {
  allows,
  clamp,
  fetchLocks,
  Lock,
  lockedPlugin,
  lockNote,
  MAX_FILE,
  NO_LOCKS,
  parseLocks,
  SiteLocks
} from '../src/runs/locks';
import { ApproveMode, Mode } from '../src/runs/contract';

// build-test/test/ -> the repository's root
const ROOT = join(__dirname, '..', '..', '..');
const FILE = '/etc/jupyter/jupyter_agents_config.json';

/** What the server answers for tests/fixtures/locks/site.json (the Python tests check that). */
function fixtureAnswer(): unknown {
  const text = readFileSync(join(ROOT, 'tests', 'fixtures', 'locks', 'answer.json'), 'utf-8');
  return JSON.parse(text.split('SITE').join('/etc/jupyter'));
}

const ASK: Lock<ApproveMode> = { value: 'ask', file: FILE, allowed: ['deny', 'ask'] };
const DENY: Lock<ApproveMode> = { value: 'deny', file: FILE, allowed: ['deny'] };
const PLAN: Lock<Mode> = { value: 'plan', file: FILE, allowed: ['ask', 'plan'] };

describe("the server's answer", () => {
  it('gives the locks the lab shows, and leaves the other keys out', () => {
    assert.deepEqual(parseLocks(fixtureAnswer()), { approve: ASK, mode: PLAN });
  });

  it('means no locks when it is not an answer', () => {
    for (const body of [null, undefined, 'locks', 42, [], {}, { locks: null }, { locks: [] }]) {
      assert.deepEqual(parseLocks(body), NO_LOCKS);
    }
  });

  // Each line: a lock of `approve` as received, and whether it is kept.
  const table: [string, unknown, boolean][] = [
    ['as the server sends it', { value: 'ask', file: FILE, allowed: ['deny', 'ask'] }, true],
    ['a value not among the modes', { value: 'yolo', file: FILE, allowed: ['yolo'] }, false],
    ['a value of another case', { value: 'ASK', file: FILE, allowed: ['deny', 'ASK'] }, false],
    ['a value that is no string', { value: 1, file: FILE, allowed: ['deny', 'ask'] }, false],
    ['no value', { file: FILE, allowed: ['deny', 'ask'] }, false],
    ['the value not among those allowed', { value: 'ask', file: FILE, allowed: ['deny'] }, false],
    ['an unknown allowed value', { value: 'ask', file: FILE, allowed: ['ask', 'sudo'] }, false],
    ['an allowed value twice', { value: 'ask', file: FILE, allowed: ['ask', 'ask'] }, false],
    ['allowed not a list', { value: 'ask', file: FILE, allowed: 'deny,ask' }, false],
    ['no allowed list', { value: 'ask', file: FILE }, false],
    ['a file that is no string', { value: 'ask', file: ['/etc'], allowed: ['ask'] }, false],
    ['an empty file', { value: 'ask', file: ' ', allowed: ['ask'] }, false],
    ['not an object', ['ask', FILE], false],
    ['null', null, false]
  ];
  for (const [what, lock, kept] of table) {
    it(`${kept ? 'keeps' : 'drops'} a lock with ${what}`, () => {
      const parsed = parseLocks({ locks: { approve: lock, mode: PLAN } });
      assert.equal(parsed.approve !== null, kept);
      assert.deepEqual(parsed.mode, PLAN); // one bad lock does not spoil the other
    });
  }

  it('keeps a mode lock only with modes', () => {
    const lock = { value: 'plan', file: FILE, allowed: ['deny', 'plan'] };
    assert.equal(parseLocks({ locks: { mode: lock } }).mode, null);
  });

  it('keeps the file as plain text: markup as it is, control characters out, cut when long', () => {
    const markup = '/etc/<img src=x onerror="alert(1)">/jupyter_agents_config.json';
    const lock = (file: string) => parseLocks({ locks: { approve: { ...ASK, file } } }).approve;
    assert.equal(lock(markup)?.file, markup); // shown with textContent / as an attribute only
    assert.equal(lock('/etc/\u202ejupyter\n\u0007.json')?.file, '/etc/jupyter.json');
    const long = lock(`/${'x'.repeat(5000)}`)?.file ?? '';
    assert.equal(long.length, MAX_FILE);
    assert.ok(long.endsWith('…'));
  });
});

describe('what a lock allows', () => {
  // Each line: the lock, a value, whether it is allowed, and what it is clamped to.
  const approve: [Lock<ApproveMode> | null, ApproveMode, boolean, ApproveMode][] = [
    [ASK, 'auto', false, 'ask'],
    [ASK, 'ask', true, 'ask'],
    [ASK, 'deny', true, 'deny'],
    [DENY, 'ask', false, 'deny'],
    [DENY, 'auto', false, 'deny'],
    [null, 'auto', true, 'auto']
  ];
  for (const [lock, value, allowed, clamped] of approve) {
    const under = lock?.value ?? 'no';
    it(`approve ${value} under ${under} lock: ${allowed ? 'allowed' : clamped}`, () => {
      assert.equal(allows(lock, value), allowed);
      assert.equal(clamp(lock, value), clamped);
    });
  }

  const modes: [Mode, boolean][] = [
    ['ask', true],
    ['plan', true],
    ['agent', false]
  ];
  for (const [mode, allowed] of modes) {
    it(`mode ${mode} under a lock at plan: ${allowed ? 'allowed' : 'plan'}`, () => {
      assert.equal(allows(PLAN, mode), allowed);
      assert.equal(clamp(PLAN, mode), allowed ? mode : 'plan');
    });
  }

  it('is said in one sentence naming the file', () => {
    assert.equal(
      lockNote(ASK, 'careful'),
      `Locked by your administrator: at least as careful as ask (${FILE}).`
    );
    assert.equal(
      lockNote(PLAN, 'strict'),
      `Locked by your administrator: at least as strict as plan (${FILE}).`
    );
  });
});

/** `jupyter-agents:runs` as the registry composes it, with the person's `defaultApproval`. */
function plugin(defaultApproval?: string): ISettingRegistry.IPlugin {
  const path = join(ROOT, 'labextension', 'schema', 'runs.json');
  const schema = JSON.parse(readFileSync(path, 'utf-8'));
  const user = defaultApproval === undefined ? {} : { defaultApproval };
  return {
    id: 'jupyter-agents:runs',
    raw: JSON.stringify(user),
    schema,
    version: '0.1.0',
    data: {
      user,
      composite: {
        notifications: true,
        defaultApproval: defaultApproval ?? 'ask',
        headlessGrace: 5
      }
    }
  };
}

describe('the Default approval mode setting under a lock', () => {
  const withLocks = (approve: Lock<ApproveMode> | null): SiteLocks => ({ approve, mode: PLAN });

  it('offers only the allowed values, the strictest first, and says it is locked', () => {
    const before = plugin('auto');
    const snapshot = JSON.stringify(before);
    const after = lockedPlugin(before, withLocks(ASK));
    const property = after.schema.properties?.defaultApproval;
    assert.deepEqual(property?.enum, ['deny', 'ask']);
    assert.equal(property?.default, 'ask');
    assert.ok(
      String(property?.description).endsWith(
        ` Locked by your administrator: at least as careful as ask (${FILE}).`
      )
    );
    assert.equal(after.data.composite.defaultApproval, 'ask'); // the person's auto, clamped
    assert.equal(after.data.user.defaultApproval, 'auto'); // what they saved stays theirs
    assert.equal(JSON.stringify(before), snapshot); // the registry's object is not changed
    // the other settings are as they were
    const notifications = (p: ISettingRegistry.IPlugin) => p.schema.properties?.notifications;
    assert.deepEqual(notifications(after), notifications(before));
    assert.equal(after.data.composite.headlessGrace, 5);
  });

  it('keeps a stricter value the person chose', () => {
    const after = lockedPlugin(plugin('deny'), withLocks(ASK));
    assert.equal(after.data.composite.defaultApproval, 'deny');
  });

  it('moves the default too when the lock is stricter than it', () => {
    const after = lockedPlugin(plugin(), withLocks(DENY));
    const property = after.schema.properties?.defaultApproval;
    assert.deepEqual(property?.enum, ['deny']);
    assert.equal(property?.default, 'deny');
    assert.equal(after.data.composite.defaultApproval, 'deny');
  });

  it('is left as it is without a lock of approve', () => {
    const before = plugin('auto');
    assert.equal(lockedPlugin(before, withLocks(null)), before);
  });
});

describe('asking the server', () => {
  /** Settings whose fetch answers `status` with `body` (or throws), recording the URLs asked. */
  function server(status: number | 'throws', body: unknown = {}) {
    const asked: string[] = [];
    const fetch = async (input: RequestInfo | URL) => {
      asked.push(String(input instanceof Request ? input.url : input));
      if (status === 'throws') {
        throw new TypeError('Failed to fetch');
      }
      return new Response(JSON.stringify(body), { status });
    };
    const settings = ServerConnection.makeSettings({
      baseUrl: 'http://127.0.0.1:8888/user/ana/',
      wsUrl: 'ws://127.0.0.1:8888/user/ana/',
      token: '',
      fetch,
      Request,
      Headers
    });
    return { settings, asked };
  }

  it("reads the locks at the server's base URL", async () => {
    const { settings, asked } = server(200, fixtureAnswer());
    assert.deepEqual(await fetchLocks(settings), { approve: ASK, mode: PLAN });
    // (ServerConnection adds a query against caches)
    const urls = asked.map(url => url.split('?')[0]);
    assert.deepEqual(urls, ['http://127.0.0.1:8888/user/ana/jupyter-agents/locks']);
  });

  it('knows no locks without the endpoint, on an error, or when unreachable', async () => {
    for (const status of [404, 403, 500, 'throws'] as const) {
      assert.deepEqual(await fetchLocks(server(status, fixtureAnswer()).settings), NO_LOCKS);
    }
  });

  it('knows no locks when the answer is not JSON', async () => {
    const { settings } = server(200);
    const broken = { ...settings, fetch: async () => new Response('<html>', { status: 200 }) };
    assert.deepEqual(await fetchLocks(broken), NO_LOCKS);
  });
});
