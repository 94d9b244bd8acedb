import { formatDate } from "./dates";

describe("formatDate", () => {
  it.each([
    ["2026-11-21T08:30:00Z", "November 21, 2026"],
    ["2026-01-01T00:00:00Z", "January 1, 2026"],
    // Late on the 31st in UTC stays the 31st whatever the reader's zone.
    ["2025-12-31T23:59:59Z", "December 31, 2025"],
    ["2026-03-05", "March 5, 2026"],
  ])("formats %s as %s", (input, expected) => {
    expect(formatDate(input)).toBe(expected);
  });

  it("accepts a Date and epoch milliseconds", () => {
    expect(formatDate(new Date(Date.UTC(2026, 10, 21)))).toBe("November 21, 2026");
    expect(formatDate(Date.UTC(2026, 10, 21))).toBe("November 21, 2026");
  });

  it("shows a value that is not a date as it came", () => {
    expect(formatDate("soon")).toBe("soon");
  });
});
