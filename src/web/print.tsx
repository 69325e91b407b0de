/**
 * The heading of a paper copy (print stylesheet): what it is, whose it is and the day it was printed. Hidden on
 * screen; the site's navigation and forms are hidden on paper.
 */
export function PrintHeader({ title, name, documento, printedOn }: { title: string; name: string; documento: string; printedOn: string }) {
  const [y, m, d] = printedOn.split('-');
  return (
    <header class="print-only print-header">
      <p class="print-header-title">Somno · {title}</p>
      <p>
        <strong>{name}</strong> · {documento}
      </p>
      <p>
        Impreso el {d}/{m}/{y}
      </p>
    </header>
  );
}
