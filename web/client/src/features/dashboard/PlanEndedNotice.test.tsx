import { planEndedText } from "./PlanEndedNotice";

describe("planEndedText", () => {
  it("names the plan, the day it ended and the inactive terms", () => {
    expect(planEndedText({ tier: "team", endedAt: "2026-03-02T23:30:00Z", inactiveTerms: 9 })).toBe(
      "Your Team plan ended on March 2, 2026. 9 search terms are now inactive; upgrade to reactivate them.",
    );
  });

  it("one inactive term is 'it'; none leaves the sentence out", () => {
    expect(planEndedText({ tier: "pro", endedAt: "2026-03-02T00:00:00Z", inactiveTerms: 1 })).toBe(
      "Your Pro plan ended on March 2, 2026. 1 search term is now inactive; upgrade to reactivate it.",
    );
    expect(planEndedText({ tier: "pro", endedAt: "2026-03-02T00:00:00Z", inactiveTerms: 0 })).toBe("Your Pro plan ended on March 2, 2026.");
  });
});
