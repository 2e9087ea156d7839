// reward.py of an exported recipe: the world's verifier (src/world/trace.ts readAnswer, the
// scoring rule of src/eval/score.ts answerOf) in plain Python 3 with no imports beyond re, with
// TRL's reward-function signature and veRL's compute_score. It never raises: whatever a
// framework hands it, a malformed response scores 0.
import { VALUE_LIMIT } from '../world/expr';
import { ANSWER_MARKER } from '../world/trace';
import { EOS, VOCABULARY } from '../world/tokenizer';

export function rewardPy(): string {
  return `"""The RLVR Lab verifier, for TRL and veRL (written by rlvr-lab export-recipe).

A response scores 1.0 when it ended with <eos> and the text before its first <eos> holds, after
the LAST '${ANSWER_MARKER}', a canonical integer (no sign on zero, no leading zeros, |n| <= ${VALUE_LIMIT}) equal to
the gold answer; anything else, a response cut at the token limit included, scores 0.0. No
function here raises.

- TRL:  GRPOTrainer(reward_funcs=trl_reward): reads completion_ids (exact: the token ids, <eos>
        included) and the dataset's "answer" column.
- veRL: custom_reward_function.path=reward.py, name=compute_score. veRL's reward managers decode
        with skip_special_tokens=True, so <eos> is not in solution_str: a text without it is read
        as ended unless it is extra_info["max_response_length"] characters long (one token per
        character: a response that wrote <eos> within the limit is shorter).
"""
import re

VOCABULARY = ${JSON.stringify(VOCABULARY)}
EOS_ID = ${EOS}
EOS_TEXT = ${JSON.stringify(VOCABULARY[EOS])}
MARKER = ${JSON.stringify(ANSWER_MARKER)}
VALUE_LIMIT = ${VALUE_LIMIT}
_INTEGER = re.compile(r"(0|-?[1-9][0-9]*)")


def read_answer(text):
    """The integer after the last marker, or None (empty, no marker, malformed, out of range)."""
    if not isinstance(text, str) or len(text) == 0:
        return None
    at = text.rfind(MARKER)
    if at < 0:
        return None
    tail = text[at + 1:]
    # at most 4 characters ("-999"): int() of a huge digit string is slow or refused
    if len(tail) > 4 or _INTEGER.fullmatch(tail) is None:
        return None
    value = int(tail)
    return value if abs(value) <= VALUE_LIMIT else None


def _gold(ground_truth):
    try:
        if isinstance(ground_truth, bool):
            return None
        if isinstance(ground_truth, int):
            return ground_truth
        if isinstance(ground_truth, float) and ground_truth.is_integer():
            return int(ground_truth)
        if isinstance(ground_truth, str) and _INTEGER.fullmatch(ground_truth.strip()):
            return int(ground_truth.strip())
    except Exception:
        pass
    return None


def score_text(response, ground_truth):
    """A response as the lab writes it (special tokens as <name>): cut at the first <eos>."""
    try:
        gold = _gold(ground_truth)
        if gold is None or not isinstance(response, str):
            return 0.0
        end = response.find(EOS_TEXT)
        if end < 0:
            return 0.0
        answer = read_answer(response[:end])
        return 1.0 if answer is not None and answer == gold else 0.0
    except Exception:
        return 0.0


def score_ids(ids, ground_truth):
    """A response as token ids: the text of the ids before the first <eos>; no <eos>, 0."""
    try:
        ids = [int(i) for i in ids]
        if EOS_ID not in ids:
            return 0.0
        ids = ids[:ids.index(EOS_ID)]
        if any(i < 0 or i >= len(VOCABULARY) for i in ids):
            return 0.0
        return score_text("".join(VOCABULARY[i] for i in ids) + EOS_TEXT, ground_truth)
    except Exception:
        return 0.0


def trl_reward(prompts=None, completions=None, completion_ids=None, answer=None, **kwargs):
    """TRL's reward function: one float per completion."""
    n = len(completion_ids) if completion_ids is not None else len(completions or [])
    golds = answer if answer is not None else [None] * n
    if completion_ids is not None:
        return [score_ids(ids, g) for ids, g in zip(completion_ids, golds)]
    # without ids (an older TRL) the text has lost <eos>: read it as ended
    return [score_text((c if isinstance(c, str) else "") + EOS_TEXT, g) for c, g in zip(completions, golds)]


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    """veRL's custom reward: {"score", "acc"} (DAPO's filter_groups reads "acc")."""
    try:
        if not isinstance(solution_str, str):
            score = 0.0
        elif EOS_TEXT in solution_str:
            score = score_text(solution_str, ground_truth)
        else:
            limit = (extra_info or {}).get("max_response_length") if isinstance(extra_info, dict) else None
            cut = isinstance(limit, int) and len(solution_str) >= limit
            score = 0.0 if cut else score_text(solution_str + EOS_TEXT, ground_truth)
    except Exception:
        score = 0.0
    return {"score": score, "acc": score}
`;
}
