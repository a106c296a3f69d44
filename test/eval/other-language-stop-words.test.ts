import { describe, expect, it } from 'vitest';
import { cleanQuery } from '../../src/retrieval/clean-query.js';
import { OTHER_LANGUAGE_STOP_WORDS } from '../../bench/ranking-experiments/other-language-stop-words.js';

const otherLanguages = { stopWords: OTHER_LANGUAGE_STOP_WORDS };

describe('cleanQuery with other-language stop words', () => {
  it('drops Spanish, German and French function words only when asked', () => {
    expect(cleanQuery('Busca las noticias de la semana', otherLanguages)).toEqual(['busca', 'noticias', 'semana']);
    expect(cleanQuery('Schick eine Nachricht in den Kanal', otherLanguages)).toEqual(['schick', 'nachricht', 'kanal']);
    expect(cleanQuery('Trouve un appartement pour le mois de juin', otherLanguages)).toEqual(['trouve', 'appartement', 'mois', 'juin']);
    expect(cleanQuery('Busca las noticias de la semana')).toContain('las');
  });

  it('keeps words that are English tool words too', () => {
    expect(cleanQuery('come back via the file per day', otherLanguages)).toEqual(['come', 'back', 'via', 'file', 'per', 'day']);
  });
});
