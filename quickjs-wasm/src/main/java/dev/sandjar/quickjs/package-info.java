/** QuickJS-ng on Chicory. */
package dev.sandjar.quickjs;
