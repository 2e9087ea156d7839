// Model text split back into its tokens for display: special tokens are written `<name>`,
// everything else is one character per token (the world's tokenizer).
const TOKEN = /<[a-z0-9:]+>|[\s\S]/g;

export function splitTokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

export const isSpecial = (token: string): boolean => token.length > 1 && token.startsWith('<');
