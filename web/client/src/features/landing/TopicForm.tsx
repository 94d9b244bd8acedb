// The hero's research-topic field (spec §2, §5): a non-blank topic is checked with the rules of
// the dashboard's term field (lib/searchTerm); a valid one is kept in session storage
// (pendingSearch) for after sign-up, and the visitor goes to /auth; a refused one shows the
// rule's message under the field and stays. A blank one does nothing.
import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router-dom";
import { Button } from "@/components/ui/Button";
import { Input } from "@/components/ui/Input";
import { searchTermError } from "@/lib/searchTerm";
import { setPendingSearch } from "@/state/pendingSearch";

const ERROR_ID = "research-topic-error";

export function TopicForm() {
  const navigate = useNavigate();
  const [topic, setTopic] = useState("");
  const [error, setError] = useState<string | null>(null);
  const trimmedTopic = topic.trim();

  const startDiscovery = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!trimmedTopic) return;
    const refusal = searchTermError(trimmedTopic);
    if (refusal) {
      setError(refusal);
      return;
    }
    setPendingSearch(trimmedTopic);
    navigate("/auth");
  };

  return (
    <form onSubmit={startDiscovery} className="w-full">
      <label htmlFor="research-topic" className="sr-only">
        Research topic
      </label>
      <div className="flex flex-col gap-3 rounded-2xl border border-slate-200 bg-white p-2 shadow-lg shadow-brand-900/5 sm:flex-row sm:items-center">
        <Input
          id="research-topic"
          name="topic"
          value={topic}
          onChange={(event) => {
            setTopic(event.target.value);
            setError(null);
          }}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? ERROR_ID : undefined}
          placeholder="e.g. CRISPR base editing in T cells"
          autoComplete="off"
          maxLength={200}
          className="h-12 border-0 text-base shadow-none focus-visible:outline-offset-0 sm:flex-1"
        />
        <Button type="submit" size="lg" disabled={!trimmedTopic} className="shrink-0">
          Start Discovery
          <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2">
            <path d="M4 10h12m-5-5 5 5-5 5" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
        </Button>
      </div>
      {error ? (
        <p id={ERROR_ID} role="alert" className="mt-2 rounded-md bg-white/90 px-3 py-1.5 text-left text-sm font-medium text-red-700">
          {error}
        </p>
      ) : null}
    </form>
  );
}
