package com.dylibso.chicory.runtime;

/**
 * A test double of Chicory's memory type, named as the real one: the pass recognizes a method's
 * memory parameter by this name (the outline module does not depend on Chicory).
 */
public class Memory {}
