// The first thing a newcomer reads: what RLVR is, the task (one worked example with its step
// trace, computed by the world's own solver), what GRPO does, what to watch, how long a run takes,
// and set-ups that show one thing each, as links. Dismissible; the masthead brings it back.
import { useState } from 'react';
import { LOOPS } from '../loops/registry';
import { parseExpr, solutionOf } from '../world/index';

const DISMISSED_KEY = 'rlvr-lab-intro-dismissed';
const EXAMPLE = 'max(7,2)*3+4';

/** Set-ups that each show one thing (the page address carries them, like any set-up). */
export const OUTCOMES: readonly { title: string; query: string; what: string }[] = [
  { title: 'Quick demo', query: 'setup=lab', what: 'the lab-sized set-up: 4 problems × 8 samples, 20 steps, an evaluation every 10' },
  { title: 'See entropy fall', query: 'steps=60&evalEvery=20', what: 'GRPO at its default learning rate (1e-4) for 60 steps: the policy commits, its entropy falls' },
  { title: 'Watch pass@k narrow', query: 'steps=100&evalEvery=25&evalProblems=32&evalN=64&seed=1', what: '100 steps at 1e-4 with pass@k up to k = 64: in docs/results.md §1c this seed lost coverage (pass@64 0.94 → 0.84) while training reward rose' },
];

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

export function useIntro(): [boolean, (open: boolean) => void] {
  const [open, setOpen] = useState(() => storage()?.getItem(DISMISSED_KEY) !== '1');
  const set = (o: boolean) => {
    setOpen(o);
    try {
      if (o) storage()?.removeItem(DISMISSED_KEY);
      else storage()?.setItem(DISMISSED_KEY, '1');
    } catch {
      // storage refused (private mode): the choice lasts until the page closes
    }
  };
  return [open, set];
}

function workedExample(): string {
  const p = parseExpr(EXAMPLE);
  return p.ok ? solutionOf(p.expr) : '';
}

export function Intro({ onClose }: { onClose: () => void }) {
  const trace = workedExample();
  return (
    <section className="panel intro" aria-labelledby="intro-title" data-testid="intro">
      <div className="intro-head">
        <h2 id="intro-title">What this lab shows</h2>
        <button type="button" className="link" data-testid="intro-close" onClick={onClose}>
          Hide
        </button>
      </div>
      <p>
        <strong>Reinforcement learning with verifiable rewards (RLVR)</strong>: a language model answers problems whose answers can be checked exactly, and is pushed
        towards the answers that checked out. Here a small GPT-2 does integer arithmetic on your GPU: given <code>{EXAMPLE}</code> it writes{' '}
        <code data-testid="intro-example">{trace}</code>, a step trace and the answer after <code>#</code>; only the answer is checked. Pick a set-up and press{' '}
        <em>Start run</em> (at the top, or under <em>New run</em>, where every knob is):
      </p>
      <ul className="intro-outcomes">
        {OUTCOMES.map((o) => (
          <li key={o.title}>
            <a href={`?${o.query}`} data-testid="intro-outcome">
              {o.title}
            </a>
            : {o.what}
          </li>
        ))}
      </ul>
      <details className="intro-more">
        <summary>What GRPO does, and what to watch</summary>
        <p>
          <strong>GRPO</strong> samples 8 answers per problem, scores each 1 (right) or 0, and raises the probability of the answers that beat their group's mean and
          lowers the others. The other loops build their own curriculum on top of it (SvS writes variants of the problems the policy finds hard).
        </p>
        <p>
          <strong>Watch</strong> the reward rise and the <em>policy entropy</em> fall as the policy commits. On held-out problems, <em>pass@1</em> (one try) can rise
          while <em>pass@k</em> for large k (any of k tries) falls: RL sharpening what the model already knew rather than teaching it more. The status line says what a
          run is doing and how long it has left.
        </p>
      </details>
      <p className="detail">
        The base policy's card: <a href="models/small/card.json">small</a>. The papers:{' '}
        {LOOPS.filter((d) => d.spec.paper).map((d, i) => (
          <span key={d.spec.name}>
            {i > 0 && ', '}
            <a href={d.spec.paper!.url} target="_blank" rel="noreferrer">
              {d.spec.paper!.title}
            </a>
          </span>
        ))}
        .
      </p>
    </section>
  );
}
