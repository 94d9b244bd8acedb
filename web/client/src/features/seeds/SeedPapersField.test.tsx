import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { polyfillBrowserApis } from "@/test/harness";
import { SeedPapersField, SeedsFound } from "./SeedPapersField";
import { MAX_SEED_FILE_BYTES, NO_SEEDS, SEED_FILE_TOO_LARGE, seedErrors, seedsRequest, type SeedsValue } from "./seeds";
import { ApiError } from "@/lib/api";

/** The field as a form holds it; `seen` gets every value it takes. */
function Holder({ collapsible = false, errors = [], seen }: { collapsible?: boolean; errors?: string[]; seen: (value: SeedsValue) => void }) {
  const [value, setValue] = useState<SeedsValue>(NO_SEEDS);
  seen(value);
  return <SeedPapersField value={value} onChange={setValue} errors={errors} collapsible={collapsible} />;
}

function renderField(props: { collapsible?: boolean; errors?: string[] } = {}) {
  const values: SeedsValue[] = [];
  const user = userEvent.setup();
  render(<Holder {...props} seen={(value) => values.push(value)} />);
  return { user, latest: () => values[values.length - 1] };
}

const idsField = () => screen.getByRole("textbox", { name: "DOIs, PMIDs or arXiv ids, one per line" });
const fileField = () => screen.getByLabelText("Or a BibTeX or RIS file");

beforeAll(polyfillBrowserApis);

describe("seedsRequest", () => {
  it("is nothing when nothing was given", () => {
    expect(seedsRequest(NO_SEEDS)).toBeUndefined();
    expect(seedsRequest({ ids: "  \n ", file: { name: "empty.bib", text: "\n" } })).toBeUndefined();
  });

  it("sends the pasted lines and the file's text, each only when given", () => {
    expect(seedsRequest({ ids: " 10.1/a\n34265844 \n", file: null })).toEqual({ ids: "10.1/a\n34265844" });
    expect(seedsRequest({ ids: "", file: { name: "refs.ris", text: "TY  - JOUR\n" } })).toEqual({ file: "TY  - JOUR\n" });
    expect(seedsRequest({ ids: "2106.09685", file: { name: "refs.bib", text: "@article{a}" } })).toEqual({ ids: "2106.09685", file: "@article{a}" });
  });

  it("reads the server's messages on the seeds only", () => {
    const refusal = new ApiError(400, {
      code: "validation_failed",
      message: "Some seed papers could not be read.",
      errors: [
        { field: "seeds", message: 'Line 3 ("foo"): Not a DOI, PMID or arXiv id' },
        { field: "searchTerm", message: "Too short" },
        { field: "seeds", message: "PMID 99999999 was not found" },
      ],
    });
    expect(seedErrors(refusal)).toEqual(['Line 3 ("foo"): Not a DOI, PMID or arXiv id', "PMID 99999999 was not found"]);
    expect(seedErrors(new Error("offline"))).toEqual([]);
  });
});

describe("SeedPapersField", () => {
  it("folded: opens from its button, then takes pasted identifiers", async () => {
    const { user, latest } = renderField({ collapsible: true });
    const toggle = screen.getByRole("button", { name: "Seed it with papers you know (optional)" });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByRole("textbox")).toBeNull();
    await user.click(toggle);
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    await user.type(idsField(), "10.1038/x{Enter}34265844");
    expect(latest()).toEqual({ ids: "10.1038/x\n34265844", file: null });
  });

  it("reads a chosen file, shows its name, and lets it go again", async () => {
    const { user, latest } = renderField();
    expect(fileField()).toHaveAttribute("accept", ".bib,.bibtex,.ris,.txt");
    await user.upload(fileField(), new File(["@article{a, doi = {10.1/a}}"], "refs.bib", { type: "text/x-bibtex" }));
    expect(await screen.findByText("refs.bib")).toBeInTheDocument();
    expect(screen.getByText(/Chosen file:/)).toHaveTextContent("Chosen file: refs.bib");
    expect(latest().file).toEqual({ name: "refs.bib", text: "@article{a, doi = {10.1/a}}" });
    await user.click(screen.getByRole("button", { name: "Remove file" }));
    expect(latest().file).toBeNull();
    expect(screen.queryByText(/Chosen file:/)).toBeNull();
  });

  it("refuses a file over 512 KiB before anything is read or sent", async () => {
    const { user, latest } = renderField();
    const big = new File(["x"], "library.ris");
    Object.defineProperty(big, "size", { value: MAX_SEED_FILE_BYTES + 1 });
    const read = vi.spyOn(big, "text");
    await user.upload(fileField(), big);
    expect(await screen.findByRole("alert")).toHaveTextContent(SEED_FILE_TOO_LARGE);
    expect(SEED_FILE_TOO_LARGE).toBe("The file is larger than 512 KiB.");
    expect(fileField()).toHaveAttribute("aria-invalid", "true");
    expect(read).not.toHaveBeenCalled();
    expect(latest().file).toBeNull();
    expect(screen.queryByText(/Chosen file:/)).toBeNull();

    // A file of exactly 512 KiB is taken.
    const fits = new File(["ok"], "fits.ris");
    Object.defineProperty(fits, "size", { value: MAX_SEED_FILE_BYTES });
    await user.upload(fileField(), fits);
    expect(await screen.findByText("fits.ris")).toBeInTheDocument();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("lists each of the server's messages as an alert, opens itself for them, and marks the field", () => {
    const errors = ['Line 3 ("foo"): Not a DOI, PMID or arXiv id', "PMID 99999999 was not found"];
    renderField({ collapsible: true, errors });
    const list = screen.getByRole("list", { name: "Problems with the seed papers" });
    expect(screen.getByRole("alert")).toContainElement(list);
    expect(within(list).getAllByRole("listitem").map((item) => item.textContent)).toEqual(errors);
    expect(screen.getByRole("button", { name: "Seed it with papers you know (optional)" })).toHaveAttribute("aria-expanded", "true");
    expect(idsField()).toHaveAttribute("aria-invalid", "true");
    expect(idsField()).toHaveAccessibleDescription(expect.stringContaining("PMID 99999999 was not found"));
  });
});

describe("SeedsFound", () => {
  it("says how many papers seeded the topic and where each was found", () => {
    render(
      <SeedsFound
        seeded={[
          { givenAs: "10.1/a", paperKey: "doi:10.1/a", title: "Base editors in vivo", authors: "A", year: 2024, source: "pubmed", foundIn: "index" },
          { givenAs: "2106.09685", paperKey: "arxiv:2106.09685", title: "LoRA", authors: "B", year: 2021, source: "arxiv", foundIn: "source" },
          { givenAs: "34265844", paperKey: "pmid:34265844", title: "AlphaFold", authors: "C", year: 2021, source: "pubmed", foundIn: "source" },
        ]}
      />,
    );
    expect(screen.getByRole("status")).toHaveTextContent(/^Seeded from 3 papers:/);
    expect(screen.getAllByRole("listitem").map((item) => item.textContent)).toEqual([
      "Base editors in vivo(found in Papertide)",
      "LoRA(looked up at arXiv)",
      "AlphaFold(looked up at PubMed)",
    ]);
  });

  it("one paper, and none", () => {
    const paper = { givenAs: "x", paperKey: "doi:x", title: "T", authors: "", year: null, source: "biorxiv" as const, foundIn: "source" as const };
    const { rerender } = render(<SeedsFound seeded={[paper]} />);
    expect(screen.getByRole("status")).toHaveTextContent("Seeded from 1 paper:T(looked up at bioRxiv)");
    rerender(<SeedsFound seeded={[]} />);
    expect(screen.queryByRole("status")).toBeNull();
  });
});
