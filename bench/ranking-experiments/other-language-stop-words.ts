/**
 * Function words of Spanish, French, German, Portuguese and Italian requests (articles,
 * prepositions, pronouns, auxiliaries, conjunctions). Tool text is mostly English, so such a
 * word matches only by accident ("de" in a name, "la" in a place) and, being rare there, BM25
 * gives it a high IDF; the embedder, which knows little of these languages, adds noise from
 * them. Words that are also meaningful English tool words ("come", "die", "per", "via", "file",
 * "art", "war") are left out.
 */
export const OTHER_LANGUAGE_STOP_WORDS: ReadonlySet<string> = new Set(
  // Spanish
  (`el la los las un una unos unas lo al del de en y o u que es son por para con sin sobre entre hasta desde
  como cuando donde porque pero mi mis tu tus su sus nuestro nuestra nuestros nuestras me te se nos le les
  este esta estos estas ese esa eso esos esas ya muy más también todo todos toda todas hay ser está están
  qué cómo cuál dónde haz hazme dame puedes favor` +
    // French
    ` le les une des du au aux et ou où est sont dans pour par avec sans sur sous chez ce cet cette ces mon ma
  mes ton ta tes son sa ses notre nos votre vos leur leurs je tu il elle nous vous ils elles moi toi lui qui
  quoi dont être avoir fait faire très aussi tout tous toute toutes pas ne plus s'il svp peux pouvez` +
    // German
    ` der das den dem des ein eine einen einem einer eines und oder aber ist sind mit von zu zum zur im
  ins auf aus bei nach über unter für ohne um durch gegen ich du er sie es wir ihr mich mir dich dir uns
  euch sich mein meine meinen meinem dein deine sein seine unser unsere nicht kein keine auch noch schon
  dass wie wo wer welche welcher bitte alle alles` +
    // Portuguese
    ` os um uma uns umas do da dos das no na nos nas ao aos à às pelo pela pelos pelas em com sem sobre até
  meu minha meus minhas seu sua seus suas nosso nossa ele ela eles elas eu você vocês isso isto esse essa
  não mais muito também foi são ser está estão por favor` +
    // Italian
    ` il lo gli un uno una di del della dei degli delle da dal dalla nel nella nei con su sul sulla tra fra e
  ed che chi cui non più anche molto questo questa questi queste quello quella mio mia miei tuo tua suo
  sua nostro nostra loro io noi voi lui lei sono essere è stato fai fammi`)
    .split(/\s+/)
    .filter(Boolean),
);
