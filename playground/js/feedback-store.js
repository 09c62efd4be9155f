// Where the playground keeps feedback and the verified queries it proposed: IndexedDB, in
// this browser only (never sent anywhere). One record, the book's JSON text.

const DB = "nl2sql";
const STORE = "feedback";
const KEY = "book";

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** The stored book's JSON text, or null when there is none yet. */
export async function loadFeedback() {
  const db = await open();
  try {
    const text = await done(db.transaction(STORE).objectStore(STORE).get(KEY));
    return typeof text === "string" ? text : null;
  } finally {
    db.close();
  }
}

/** Keeps the book's JSON text. */
export async function saveFeedback(text) {
  const db = await open();
  try {
    const tx = db.transaction(STORE, "readwrite");
    tx.objectStore(STORE).put(text, KEY);
    await new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}
