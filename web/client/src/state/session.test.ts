import { callsTo, stubFetch } from "@/test/harness";
import { currentUser, forgetSession, loadSession, refreshCurrentUser, setCurrentUser, signOut, type CurrentUser } from "./session";

const ADA: CurrentUser = { id: "u1", email: "ada@example.org", subscriptionTier: "free", pendingSearch: null, freeDigests: { used: 1, total: 2 } };
const answerMe = (user: CurrentUser) => ({ status: 200, body: { user } });

beforeEach(forgetSession);
afterEach(() => vi.unstubAllGlobals());

describe("the session", () => {
  it("is asked once per page load: every caller shares the first answer", async () => {
    const fetchMock = stubFetch({ "GET /api/auth/me": answerMe(ADA) });
    const answers = await Promise.all([loadSession(), loadSession()]);
    expect(await loadSession()).toEqual(ADA);
    expect(answers).toEqual([ADA, ADA]);
    expect(currentUser.value?.freeDigests).toEqual({ used: 1, total: 2 });
    expect(callsTo(fetchMock, "/api/auth/me")).toBe(1);
  });

  it("a 401 means signed out", async () => {
    stubFetch({ "GET /api/auth/me": { status: 401, body: { message: "Not authenticated" } } });
    expect(await loadSession()).toBeNull();
    expect(currentUser.value).toBeNull();
  });

  it("another failure rejects, once, until asked afresh", async () => {
    let reply = { status: 500, body: { message: "Database unavailable" } as unknown };
    const fetchMock = stubFetch({ "GET /api/auth/me": () => reply });
    await expect(loadSession()).rejects.toMatchObject({ status: 500 });
    await expect(loadSession()).rejects.toMatchObject({ status: 500 });
    expect(callsTo(fetchMock, "/api/auth/me")).toBe(1);
    reply = { status: 200, body: { user: ADA } };
    expect(await refreshCurrentUser()).toEqual(ADA);
    expect(await loadSession()).toEqual(ADA);
    expect(callsTo(fetchMock, "/api/auth/me")).toBe(2);
  });

  it("what a sign-in or sign-out tells is known without asking", async () => {
    const fetchMock = stubFetch({ "POST /api/auth/logout": { status: 200, body: {} } });
    setCurrentUser(ADA);
    expect(await loadSession()).toEqual(ADA);
    await signOut();
    expect(await loadSession()).toBeNull();
    expect(callsTo(fetchMock, "/api/auth/me")).toBe(0);
  });

  it("an answer the server gave before a sign-in does not undo it", async () => {
    let answerWith: (reply: { status: number; body: unknown }) => void = () => {};
    stubFetch({ "GET /api/auth/me": () => new Promise((resolve) => (answerWith = resolve)) });
    const asked = loadSession();
    setCurrentUser(ADA);
    answerWith({ status: 401, body: { message: "Not authenticated" } });
    expect(await asked).toEqual(ADA);
    expect(currentUser.value).toEqual(ADA);
  });
});
