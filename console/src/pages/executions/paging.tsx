import { useState } from 'preact/hooks';

export interface Pages {
  /** 1 for the first page. */
  page: number;
  next: (cursor: string) => void;
  previous: () => void;
  first: () => void;
  /** New filters start again at the first page. */
  reset: () => void;
}

/**
 * Cursor paging: the finder answers a page and the cursor of the next one, so the cursors of the
 * pages before this one are kept here (Previous goes back through them). `go` shows the page at a cursor.
 */
export function usePages(cursor: string, go: (cursor: string) => void): Pages {
  const [earlier, setEarlier] = useState<string[]>([]);
  return {
    page: earlier.length + 1,
    next: (nextCursor) => {
      setEarlier([...earlier, cursor]);
      go(nextCursor);
    },
    previous: () => {
      go(earlier.at(-1) ?? '');
      setEarlier(earlier.slice(0, -1));
    },
    first: () => {
      setEarlier([]);
      go('');
    },
    reset: () => setEarlier([]),
  };
}

export function Pager({ pages, nextCursor }: { pages: Pages; nextCursor: string | null }) {
  return (
    <nav class="pager" aria-label="Pages of executions">
      <button type="button" class="secondary" disabled={pages.page === 1} onClick={pages.first}>
        First page
      </button>
      <button type="button" class="secondary" disabled={pages.page === 1} onClick={pages.previous}>
        Previous page
      </button>
      <button type="button" class="secondary" disabled={!nextCursor} onClick={() => pages.next(nextCursor ?? '')}>
        Next page
      </button>
    </nav>
  );
}
