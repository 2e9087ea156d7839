// The lab's character tokenizer (src/world/tokenizer.ts) as Hugging Face tokenizer files, so
// that `tokenizers`, transformers' PreTrainedTokenizerFast and transformers.js read and write the
// lab's ids exactly. Browser-safe: strings out.
//
// How it is expressed: a BPE model over the 64 tokens with no merges (every character stays a
// token; `tokenizers` has no plain character model, and transformers.js reads no WordLevel), no
// normaliser and no pre-tokeniser (the world's text has no spaces to split on), the `<...>`
// tokens as added tokens (matched whole before the model sees the text), no post-processor
// (the lab's prompts carry their own <bos>; encode adds nothing), and the Fuse decoder (tokens
// joined with nothing between them; without a decoder `tokenizers` joins them with spaces).
import { CONCEPT_TAGS, VOCABULARY } from '../world/tokenizer';

/** Added tokens kept by decode(skip_special_tokens=True): the teach role's concept tags are text, not control. */
const TEXT_TOKENS: ReadonlySet<string> = new Set(CONCEPT_TAGS.map((t) => `<c:${t}>`));

const isAdded = (token: string) => token.startsWith('<');

export interface AddedToken {
  id: number;
  content: string;
  single_word: false;
  lstrip: false;
  rstrip: false;
  normalized: false;
  special: boolean;
}

export function addedTokens(): AddedToken[] {
  return VOCABULARY.flatMap((content, id) =>
    isAdded(content) ? [{ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: !TEXT_TOKENS.has(content) }] : [],
  );
}

/** tokenizer.json (the `tokenizers` serialisation, version 1.0). */
export function tokenizerJson(): Record<string, unknown> {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens(),
    normalizer: null,
    pre_tokenizer: null,
    post_processor: null,
    decoder: { type: 'Fuse' },
    model: {
      type: 'BPE',
      dropout: null,
      // the lab refuses a character outside its vocabulary; here such a character is dropped
      // (no unknown token exists to stand for it), as the folder's README says
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(VOCABULARY.map((t, id) => [t, id])),
      merges: [],
    },
  };
}

/** Joins the messages' contents with nothing added: a prompt given as one user message is the lab's prompt. */
export const CHAT_TEMPLATE = "{% for message in messages %}{{ message['content'] }}{% endfor %}";

export const SPECIAL_TOKENS = { bos_token: '<bos>', eos_token: '<eos>', pad_token: '<pad>', sep_token: '<sep>' } as const;

/** The role tokens and the reserved ids: special, but none of the named four. */
function additionalSpecial(): string[] {
  const named = new Set<string>(Object.values(SPECIAL_TOKENS));
  return addedTokens().filter((t) => t.special && !named.has(t.content)).map((t) => t.content);
}

/** tokenizer_config.json: the class, the named special tokens, left padding for generation, no space clean-up. */
export function tokenizerConfigJson(modelMaxLength: number): Record<string, unknown> {
  const decoderTable = Object.fromEntries(addedTokens().map(({ id, ...rest }) => [String(id), rest]));
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    ...SPECIAL_TOKENS,
    unk_token: null,
    additional_special_tokens: additionalSpecial(),
    added_tokens_decoder: decoderTable,
    model_max_length: modelMaxLength,
    padding_side: 'left',
    truncation_side: 'left',
    clean_up_tokenization_spaces: false,
    // the prompt text as it is: veRL applies a chat template to its prompt messages
    chat_template: CHAT_TEMPLATE,
    model_input_names: ['input_ids', 'attention_mask'],
  };
}

export function specialTokensMapJson(): Record<string, unknown> {
  return { ...SPECIAL_TOKENS, additional_special_tokens: additionalSpecial() };
}
