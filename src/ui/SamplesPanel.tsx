// Recent responses of the selected run: each row coloured by its reward, each token shaded by
// the entropy of the distribution it was drawn from (darker = the policy was less sure).
// Model text is rendered as React text nodes only.
import { memo } from 'react';
import type { SamplesEvent } from '../lab/protocol';
import { VOCAB_SIZE } from '../world/tokenizer';
import { isSpecial, splitTokens } from './tokens';
import { useLab } from './LabStore';
import { Panel } from './Panel';

/** Entropy of the uniform distribution over the vocabulary: the darkest shade. */
const MAX_ENTROPY = Math.log(VOCAB_SIZE);
const STEPS_SHOWN = 3;

function Tokens({ text, entropy }: { text: string; entropy?: readonly number[] }) {
  return (
    <>
      {splitTokens(text).map((tok, i) => {
        const h = entropy?.[i];
        const style = h === undefined ? undefined : { backgroundColor: `rgb(26 115 232 / ${Math.min(1, h / MAX_ENTROPY) * 0.6})` };
        return (
          <span key={i} className={isSpecial(tok) ? 'tok tok-special' : 'tok'} style={style} title={h === undefined ? undefined : `entropy ${h.toFixed(2)} nats`}>
            {tok}
          </span>
        );
      })}
    </>
  );
}

function rewardClass(r: number): string {
  return r >= 1 ? 'reward-full' : r > 0 ? 'reward-part' : 'reward-none';
}

const StepSamples = memo(function StepSamples({ event }: { event: SamplesEvent }) {
  return (
    <section className="samples-step" aria-label={`samples of step ${event.step}`}>
      <h3>Step {event.step}</h3>
      <ul className="samples">
        {event.samples.map((s, i) => (
          <li key={i} className={`sample ${rewardClass(s.reward)}`} data-testid="sample" data-reward={s.reward}>
            <span className="sample-reward">{s.reward.toFixed(s.reward % 1 === 0 ? 0 : 2)}</span>
            <code className="sample-prompt">
              <Tokens text={s.prompt} />
            </code>
            <code className="sample-response">
              {s.response === '' ? <span className="sample-empty">(empty: the end token came first)</span> : <Tokens text={s.response} entropy={s.entropy} />}
            </code>
          </li>
        ))}
      </ul>
    </section>
  );
});

export function SamplesPanel() {
  const run = useLab((s) => (s.runs.selected ? s.runs.byId[s.runs.selected] : null));
  if (!run) return null;
  const recent = run.data.samples.slice(-STEPS_SHOWN).reverse();
  return (
    <Panel title="Samples" className="panel-wide samples-panel" intro="The latest prompts and sampled responses. Green: rewarded (right answer); red: reward 0. Blue shading: the entropy of each sampled token.">
      {recent.length === 0 ? <p className="muted">Samples appear after the first step.</p> : recent.map((e) => <StepSamples key={e.step} event={e} />)}
    </Panel>
  );
}
