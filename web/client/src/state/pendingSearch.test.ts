import { clearPendingSearch, getPendingSearch, setPendingSearch } from "./pendingSearch";

describe("pending search", () => {
  it("reads either key and clears both", () => {
    expect(getPendingSearch()).toBeNull();
    sessionStorage.setItem("pendingSearchTerm", "CRISPR");
    expect(getPendingSearch()).toBe("CRISPR");
    setPendingSearch("  base editing ");
    expect(getPendingSearch()).toBe("base editing");
    clearPendingSearch();
    expect(getPendingSearch()).toBeNull();
  });
});
