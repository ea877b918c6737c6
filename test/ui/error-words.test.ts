import { describe, expect, it } from 'vitest';
import { errorInWords } from '../../src/shared/error-words';

describe('errorInWords', () => {
  it.each([
    [
      'Invalid params for saveSettings: providers.openai-compatible.baseURL: must be an http(s) URL.',
      'The Base URL is not a web address: write it with http:// or https://, like http://127.0.0.1:8000/v1. Correct it and try again.',
    ],
    [
      'Invalid params for testProvider: model: Too big: expected string to have <=200 characters.',
      'The model name is too long (at most 200 characters). Correct it and try again.',
    ],
    [
      'Invalid params for testProvider: model: Too small: expected string to have >=1 characters; baseURL: must be an http(s) URL.',
      'The model name is empty. The Base URL is not a web address: write it with http:// or https://, like http://127.0.0.1:8000/v1. Correct them and try again.',
    ],
    ['Invalid params for sendMessage: text: Too big: expected string to have <=200000 characters.', 'The message is too long (at most 200,000 characters). Correct it and try again.'],
    ['Invalid params for setPolicy: policy: Invalid option: expected one of "none"|"read-only".', 'The field “policy” is not valid (Invalid option: expected one of "none"|"read-only"). Correct it and try again.'],
  ])('%s', (raw, words) => {
    expect(errorInWords(raw)).toBe(words);
    expect(errorInWords(raw)).not.toMatch(/Invalid params/);
  });

  it('leaves other messages as they are', () => {
    expect(errorInWords('The model API refused the key (401). Check the key.')).toBe('The model API refused the key (401). Check the key.');
  });
});
