package dev.mosaic.format.impl;

import java.util.Arrays;

/**
 * A binary heap over an array, shared by the composite's ordered paths (the bounded top keeps its
 * worst document on top, the k-way merge its best cursor): the top is the element that belongs
 * above every other by {@link Order}, a strict total order (no two elements tie). Unlike {@link
 * java.util.PriorityQueue} it lets the top change in place and sift down once (a merge advancing
 * its best cursor, a full top replacing its worst document), where a queue would poll and offer.
 *
 * <p>Thread safety: none; one per query.
 */
final class Heap<T> {
  /** The heap's order. */
  interface Order<T> {
    /** True when {@code a} belongs above {@code b}. */
    boolean above(T a, T b);
  }

  private final T[] items;
  private final Order<T> order;
  private int size;

  /** An empty heap holding at most {@code items.length} elements. */
  Heap(T[] items, Order<T> order) {
    this.items = items;
    this.order = order;
  }

  /** A heap of every element of {@code items} (the array becomes the heap's). */
  static <T> Heap<T> of(T[] items, Order<T> order) {
    Heap<T> heap = new Heap<>(items, order);
    heap.size = items.length;
    for (int i = heap.size / 2 - 1; i >= 0; i--) {
      heap.siftDown(i);
    }
    return heap;
  }

  int size() {
    return size;
  }

  boolean isFull() {
    return size == items.length;
  }

  /** The top element; the heap must not be empty. */
  T top() {
    return items[0];
  }

  /** Adds an element; the heap must not be full. */
  void add(T item) {
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!order.above(item, items[parent])) {
        break;
      }
      items[i] = items[parent];
      i = parent;
    }
    items[i] = item;
  }

  /** Replaces the top element. */
  void replaceTop(T item) {
    items[0] = item;
    siftDown(0);
  }

  /** Restores the order after the top element changed in place. */
  void topChanged() {
    siftDown(0);
  }

  /** Removes the top element. */
  void removeTop() {
    items[0] = items[--size];
    items[size] = null;
    if (size > 0) {
      siftDown(0);
    }
  }

  /** The elements, in no particular order (a copy). */
  T[] toArray() {
    return Arrays.copyOf(items, size);
  }

  private void siftDown(int i) {
    T item = items[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && order.above(items[child + 1], items[child])) {
        child++;
      }
      if (!order.above(items[child], item)) {
        break;
      }
      items[i] = items[child];
      i = child;
    }
    items[i] = item;
  }
}
