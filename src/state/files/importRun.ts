// A run's JSON export read back (the file exportRun.ts writes). The file is untrusted: it is
// checked whole by its schema (runFile.ts: shape, types, ranges, sizes, no unknown fields), the
// config goes through the loop's own validator, and the first problem comes back as one line
// naming the file, the place and what is wrong (`run.json: metrics.step[12]: expected number,
// got "2"`). Nothing here touches the store.
import * as v from 'valibot';
import type { RunStatus } from '../../lab/protocol';
import type { CurriculumRecord } from '../../loops/events';
import { ConfigError } from '../../util/errors';
import type { BaseLoopConfig } from '../../loops/base_config';
import { LOOP_NAMES, isLoopName, loopNamed } from '../../loops/registry';
import { showValue } from '../../util/show';
import { issueLine, parseJsonStrict } from '../../util/valibot';
import type { RunRecord } from '../persist/archive';
import { RunFileSchema, type RunFileRead } from './runFile';
import { MAX_SAMPLE_EVENTS, type RunData } from '../runData';
import { loopLabel } from '../launcher';

/** Larger files are refused before they are read (a real run's export is a few MB at most). */
export const MAX_RUN_FILE_BYTES = 64 * 1024 * 1024;

const FINISHED: readonly RunStatus['state'][] = ['done', 'stopped', 'failed'];

/** What a run file holds, checked; the page gives it a new id, number and label when it adds it. */
export interface ParsedRunFile {
  original: { id: string; index: number; label: string };
  loop: string;
  policy: string;
  config: BaseLoopConfig;
  createdAt: number;
  status: RunStatus;
  data: RunData;
}

export type ImportResult = { ok: true; run: ParsedRunFile } | { ok: false; message: string };

class Invalid extends Error {}

/**
 * An imported run computes nothing here and has no checkpoints on this page: a run exported
 * mid-way is listed as stopped at its last step, and what it was doing or had saved is dropped.
 */
function settled(s: RunFileRead['run']['status']): RunStatus {
  const { phase: _phase, checkpointStep: _saved, ...status } = s;
  return FINISHED.includes(status.state) ? status : { ...status, state: 'stopped', stepsPerS: null, etaS: null };
}

function readConfig(loop: string, config: unknown): BaseLoopConfig {
  try {
    return loopNamed(loop).spec.validate(config, 'config');
  } catch (e) {
    if (e instanceof ConfigError) throw new Invalid(e.message);
    throw e;
  }
}

/** Every record's kind is one of the loop's (the schema cannot know the loop). */
function checkKinds(records: RunFileRead['records'], loop: string): void {
  const kinds = loopNamed(loop).spec.records;
  (records ?? []).forEach((e, i) => e.records.forEach((r, j) => {
    if (!kinds.includes(r.kind)) throw new Invalid(`records[${i}].records[${j}].kind is ${JSON.stringify(r.kind.slice(0, 60))}; this loop's records are ${kinds.join(', ') || 'none'}`);
  }));
}

function readRunFile(body: unknown): ParsedRunFile {
  // valibot's objects accept arrays (their keys then read as missing): say what the file is
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Invalid(`the file: expected a run (a JSON object), got ${Array.isArray(body) ? 'an array' : showValue(body)}`);
  const parsed = v.safeParse(RunFileSchema, body);
  if (!parsed.success) throw new Invalid(issueLine(parsed.issues));
  const { run, metrics, evals, samples, records } = parsed.output;
  const shownLoop = JSON.stringify(run.loop.slice(0, 60));
  if (!isLoopName(run.loop)) throw new Invalid(`run.loop is ${shownLoop}; this page reads runs of ${LOOP_NAMES.join(', ')}`);
  const config = readConfig(run.loop, parsed.output.config);
  checkKinds(records, run.loop);
  return {
    original: { id: run.id, index: run.index, label: run.label },
    loop: run.loop,
    policy: run.policy,
    config,
    createdAt: Date.parse(run.createdAt),
    status: settled(run.status),
    data: { ...metrics, evals, samples: samples.slice(-MAX_SAMPLE_EVENTS), records: (records ?? []).map((e) => ({ ...e, records: e.records as CurriculumRecord[] })) },
  };
}

/** Reads a run file's text; `fileName` starts every message. */
export function importRunText(fileName: string, body: string): ImportResult {
  const name = fileName || 'the file';
  if (body.length > MAX_RUN_FILE_BYTES) return { ok: false, message: `${name}: ${body.length} characters; run files of at most ${MAX_RUN_FILE_BYTES / 2 ** 20} MB are accepted` };
  let json: unknown;
  try {
    json = parseJsonStrict(body);
  } catch (e) {
    if (e instanceof RangeError) return { ok: false, message: `${name}: ${e.message}` };
    return { ok: false, message: `${name}: not JSON (${(e as Error).message.slice(0, 120)})` };
  }
  try {
    return { ok: true, run: readRunFile(json) };
  } catch (e) {
    if (e instanceof Invalid) return { ok: false, message: `${name}: ${e.message}` };
    throw e;
  }
}

/** The record an imported run is listed under: a new id and number on this page, marked imported. */
export function importedRecord(p: ParsedRunFile, id: string, index: number, diff: string, importedAt: number): RunRecord {
  // listed where it was imported (the list is in creation order), its own creation kept in words
  const origin = `imported: #${p.original.index} of ${new Date(p.createdAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return { id, index, label: `#${index} ${loopLabel(p.loop)} · ${p.policy} (imported)`, diff: `${origin}; ${diff}`, loop: p.loop, policy: p.policy, config: p.config, createdAt: importedAt, status: p.status };
}

