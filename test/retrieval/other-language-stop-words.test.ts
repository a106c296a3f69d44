import { describe, expect, it } from 'vitest';
import { cleanQuery } from '../../src/retrieval/clean-query.js';

describe('cleanQuery with other-language stop words', () => {
  it('drops Spanish, German and French function words only when asked', () => {
    expect(cleanQuery('Busca las noticias de la semana', { otherLanguages: true })).toEqual(['busca', 'noticias', 'semana']);
    expect(cleanQuery('Schick eine Nachricht in den Kanal', { otherLanguages: true })).toEqual(['schick', 'nachricht', 'kanal']);
    expect(cleanQuery('Trouve un appartement pour le mois de juin', { otherLanguages: true })).toEqual(['trouve', 'appartement', 'mois', 'juin']);
    expect(cleanQuery('Busca las noticias de la semana')).toContain('las');
  });

  it('keeps words that are English tool words too', () => {
    expect(cleanQuery('come back via the file per day', { otherLanguages: true })).toEqual(['come', 'back', 'via', 'file', 'per', 'day']);
  });
});
