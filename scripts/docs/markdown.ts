/** Markdown pieces the generated references share: a table from rows, and the banner naming the generator. */

/** A cell's text: pipes escaped, line breaks folded, so a description never breaks its row. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export const code = (text: string): string => `\`${text}\``;

/** The first lines of every generated file: what it is made from and the one command that remakes it. */
export function generatedBanner(title: string, source: string): string {
  return [
    `# ${title}`,
    '',
    `<!-- Generated from ${source} by \`npm run docs:generate\`: edit the source, not this file. -->`,
    '',
  ].join('\n');
}
