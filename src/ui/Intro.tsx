// The first thing a newcomer reads: what RLVR is, the task (one worked example with its step
// trace, computed by the world's own solver), what the chosen loop does and what to watch, how to
// start, and set-ups and lessons as links that keep the page's lesson parameters (PageLink), and
// the lab's own measured ablations, each opening in the explorer (GalleryLinks).
// It follows the launcher's loop; the other loops are a click away. Dismissible; the masthead
// brings it back.
import { useState } from 'react';
import { LOOPS } from '../loops/registry';
import { parseExpr, solutionOf } from '../world/index';
import { loopLabel } from '../state/launcher';
import { guidedLoops, lessonsOfLoop, LOOP_GUIDES, QUICK_DEMO, type SetupLink } from '../state/lessons';
import { useLab } from './LabStore';
import { PageLink } from './PageLink';
import { GalleryLinks } from './GalleryLinks';
const DISMISSED_KEY = 'rlvr-lab-intro-dismissed';
const EXAMPLE = 'max(7,2)*3+4';

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

function SetupLinks({ links, testId = 'intro-outcome' }: { links: readonly SetupLink[]; testId?: string }) {
  return (
    <ul className="intro-outcomes">
      {links.map((o) => (
        <li key={o.title}>
          <PageLink set={o.set} testId={testId}>
            {o.title}
          </PageLink>
          : {o.what}
        </li>
      ))}
    </ul>
  );
}

/** The paper lessons with a run of this loop, as links that open them. */
function LessonLinks({ loop, testId }: { loop: string; testId: string }) {
  const lessons = lessonsOfLoop(loop);
  if (lessons.length === 0) return null;
  return (
    <p className="intro-lessons">
      Lesson{lessons.length > 1 ? 's' : ''}:{' '}
      {lessons.map((l, i) => (
        <span key={l.id}>
          {i > 0 && ' · '}
          <PageLink set={{ lesson: l.id }} testId={testId}>
            {l.title}
          </PageLink>
        </span>
      ))}
    </p>
  );
}

/** A loop's paragraph: what it does, what to watch and where, its set-ups and lessons. */
function LoopParagraph({ loop, links, other = false }: { loop: string; links: boolean; other?: boolean }) {
  const g = LOOP_GUIDES[loop];
  return (
    <div className="intro-loop" data-testid={other ? 'intro-other-loop' : 'intro-loop'} data-loop={loop}>
      <p>
        <strong>{loopLabel(loop)}</strong> {g.does} <strong>Watch</strong> {g.watch}
      </p>
      {links && g.links.length > 0 && <SetupLinks links={g.links} testId={other ? 'intro-other-outcome' : 'intro-outcome'} />}
      {links && <LessonLinks loop={loop} testId={other ? 'intro-other-lesson' : 'intro-lesson'} />}
    </div>
  );
}

export function Intro({ onClose }: { onClose: () => void }) {
  const trace = workedExample();
  const loop = useLab((s) => s.launcher.state.loop);
  const hide = useLab((s) => s.lesson.hide);
  const lockedLoop = useLab((s) => s.lesson.lock.includes('loop'));
  const paper = useLab((s) => s.lesson.paper);
  // under hide=launcher the lesson fixed its set-up: no link offers another
  const fixed = hide.includes('launcher');
  const chosen = LOOP_GUIDES[loop] ? loop : guidedLoops()[0];
  const others = guidedLoops().filter((n) => n !== chosen);
  const how = paper
    ? <>Press <em>Start the lesson&apos;s runs</em> in the lesson above.</>
    : fixed
      ? <>This page&apos;s lesson fixes the set-up: press <em>Start run</em> at the top.</>
      : hide.includes('newrun')
        ? <>Pick a set-up and press <em>Start run</em> at the top:</>
        : <>Pick a set-up and press <em>Start run</em> (at the top, or under <em>New run</em>, where every knob is):</>;
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
        <code data-testid="intro-example">{trace}</code>, a step trace and the answer after <code>#</code>; only the answer is checked. {how}
      </p>
      {!fixed && !paper && <SetupLinks links={[QUICK_DEMO]} />}
      <LoopParagraph loop={chosen} links={!fixed} />
      <GalleryLinks />
      <details className="intro-more">
        <summary>The other loops: {others.map(loopLabel).join(', ')}</summary>
        {others.map((n) => (
          <div key={n}>
            <LoopParagraph loop={n} links={!fixed && !lockedLoop} other />
            {!fixed && !lockedLoop && (
              <p className="detail">
                <PageLink set={{ loop: n }} testId="intro-switch">
                  Switch the launcher to {loopLabel(n)}
                </PageLink>
              </p>
            )}
          </div>
        ))}
      </details>
      <p className="detail">
        The status line says what a run is doing and how long it has left. The base policy&apos;s card: <a href="models/small/card.json">small</a>. The papers:{' '}
        {LOOPS.filter((d) => d.spec.paper).map((d, i) => (
          <span key={d.spec.name}>
            {i > 0 && ', '}
            {d.spec.paper!.url ? (
              <a href={d.spec.paper!.url} target="_blank" rel="noreferrer">
                {d.spec.paper!.title}
              </a>
            ) : (
              <cite>{d.spec.paper!.title}</cite>
            )}
          </span>
        ))}
        .
      </p>
    </section>
  );
}
