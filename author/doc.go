// Package author makes SWE-Touch records: it mines a task's critical
// regions from real runs, gates candidate Counter-Edits with the task's
// own tests in three states, and assembles the dataset record.
package author
