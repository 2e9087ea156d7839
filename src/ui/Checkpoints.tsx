// A run's checkpoint on the page: export buttons (the policy as safetensors or ONNX, a Hugging Face
// folder, a TRL or veRL recipe), the list of
// other finished runs' checkpoints to delete when the browser's storage is full, and what is
// left to do once a run has lost its GPU too often.
import { useEffect, useState } from 'react';
import type { CheckpointFormat } from '../lab/protocol';
import { isFinished, type RunView } from '../state/runsSlice';
import { MAX_DEVICE_LOSSES } from '../state/resume';
import { downloadBlob } from './download';
import { useLab } from './LabStore';
import { isLoopName, loopNamed } from '../loops/registry';

const FORMAT_TEXT: Readonly<Record<string, string>> = { onnx: 'ONNX', hf: 'Hugging Face folder', 'recipe:trl': 'TRL recipe', 'recipe:verl': 'veRL recipe' };
const formatText = (f: CheckpointFormat): string => FORMAT_TEXT[f] ?? (f.startsWith('adapter:') ? `${f.slice('adapter:'.length)} adapter` : f);

/** What each zipped folder holds, for its button's title. */
const FOLDER_TITLE: Readonly<Record<string, string>> = {
  hf: 'a zip of the Hugging Face model folder (config, safetensors, tokenizer with the lab\'s ids, ONNX with past key values, README) that transformers and transformers.js load',
  'recipe:trl': 'a zip that runs this run\'s set-up in TRL: the model folder, data as JSON lines, reward.py, a GRPOConfig YAML and train.py, and a README of every knob and what does not translate',
  'recipe:verl': 'a zip that runs this run\'s set-up in veRL: the model folder, data as JSON lines, reward.py, a Hydra YAML and run.sh, and a README of every knob and what does not translate',
};

/** The run's adapter sets (a loop that trains them over a frozen base, TTSP), by name. */
function adapterNames(run: RunView): string[] {
  if (!isLoopName(run.loop)) return [];
  try {
    return (loopNamed(run.loop).spec.shape(run.config).adapters ?? []).map((a) => a.spec.name);
  } catch {
    return [];
  }
}

/** Export buttons for the run's latest checkpoint; disabled until one is saved. */
export function CheckpointExport({ run }: { run: RunView }) {
  const exportCheckpoint = useLab((s) => s.exportCheckpoint);
  const [busy, setBusy] = useState(false);
  const step = run.status.checkpointStep;
  const save = async (format: CheckpointFormat) => {
    setBusy(true);
    const f = await exportCheckpoint(run.id, format);
    setBusy(false);
    if (f) downloadBlob(new Blob([f.bytes as Uint8Array<ArrayBuffer>], { type: f.mime }), f.filename);
  };
  const adapters = adapterNames(run);
  const title = (format: CheckpointFormat) =>
    step === undefined ? 'No checkpoint saved yet'
      : FOLDER_TITLE[format] ? `Download the policy of step ${step} as ${FOLDER_TITLE[format]}`
      : format.startsWith('adapter:') ? `Download the ${formatText(format)} set of step ${step} (safetensors with PEFT's names; its LoraConfig is in the file's metadata)`
        : `Download the policy of step ${step} as ${formatText(format)}${adapters.length ? ' (the base with the solver set merged in)' : ''}`;
  const formats: CheckpointFormat[] = ['safetensors', 'onnx', 'hf', 'recipe:trl', 'recipe:verl', ...adapters.map((n): CheckpointFormat => `adapter:${n}`)];
  return (
    <>
      {formats.map((format) => (
        <button key={format} type="button" className="link" data-testid={`run-export-${format.replace(':', '-')}`} disabled={step === undefined || busy} title={title(format)} onClick={() => void save(format)}>
          {formatText(format)}
        </button>
      ))}
    </>
  );
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e6 ? 2 : 1)} MB`;

/** When storage is full: the checkpoints of other finished runs, to delete the ones no longer needed. */
export function CheckpointPrune({ run }: { run: RunView }) {
  const { list, status, persisted } = useLab((s) => s.checkpoints);
  const byId = useLab((s) => s.runs.byId);
  const load = useLab((s) => s.loadCheckpoints);
  const prune = useLab((s) => s.pruneCheckpoints);
  const [chosen, setChosen] = useState<string[]>([]);
  useEffect(() => {
    void load();
  }, [load, run.status.halts?.length]);
  const others = list.filter((c) => c.runId !== run.id && (!byId[c.runId] || isFinished(byId[c.runId].status.state)));
  const toggle = (id: string) => setChosen((c) => (c.includes(id) ? c.filter((x) => x !== id) : [...c, id]));
  return (
    <div className="checkpoint-prune" data-testid="checkpoint-prune">
      {status === 'loading' && <p className="detail">Looking for checkpoints…</p>}
      {status === 'ready' && others.length === 0 && <p className="detail">No other finished run has a checkpoint to delete: free space elsewhere in the browser, or stop this run.</p>}
      {others.length > 0 && (
        <ul className="prune-list" aria-label="Checkpoints of finished runs">
          {others.map((c) => (
            <li key={c.runId}>
              <label>
                <input type="checkbox" data-testid="prune-choice" checked={chosen.includes(c.runId)} onChange={() => toggle(c.runId)} />
                {byId[c.runId]?.label ?? `run ${c.runId} (deleted)`} · step {c.step} · {megabytes(c.bytes)}
              </label>
            </li>
          ))}
        </ul>
      )}
      <button type="button" className="secondary" data-testid="prune-checkpoints" disabled={chosen.length === 0} onClick={() => void prune(chosen).then(() => setChosen([]))}>
        Delete {chosen.length || ''} checkpoint{chosen.length === 1 ? '' : 's'}
      </button>
      <p className="detail">Export a run's checkpoint first (safetensors or ONNX beside it in the list) to keep its policy.</p>
      {persisted === false && <p className="detail">The browser has not promised to keep this site's storage, so it may clear checkpoints when space runs low.</p>}
    </div>
  );
}

/** A run that lost its GPU too many times: no more resumes, its checkpoint is for export. */
export function LossLimitNotice({ run }: { run: RunView }) {
  return (
    <div className="detail" data-testid="run-loss-limit">
      The GPU was lost {MAX_DEVICE_LOSSES} times during this run, so it is not resumed again. Export its last checkpoint
      {run.status.checkpointStep !== undefined ? ` (step ${run.status.checkpointStep})` : ''} to keep the policy: <CheckpointExport run={run} />
    </div>
  );
}
