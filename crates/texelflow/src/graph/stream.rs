//! Many images through one pipeline with several in flight: loading (decoding), the GPU run and
//! the caller's use of each result overlap across images, on as many threads as images in
//! flight, with one device and kernels compiled once. Results come out in input order.

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};

use super::{Backend, Pipeline};
use crate::error::{Error, Result};
use crate::image::Image;
use crate::value::Value;

struct State<I, V> {
    inputs: I,
    /// Inputs handed to workers so far.
    taken: usize,
    /// Results waiting for an earlier one, by input index.
    done: BTreeMap<usize, Result<V>>,
    /// Results handed to the sink so far (they go in order).
    delivered: usize,
    /// A worker is handing results to the sink.
    draining: bool,
}

impl Pipeline {
    /// Runs every item of `inputs` through the pipeline, up to `in_flight` at once: `load` turns
    /// an item into an image on a worker thread (decode a path there, so decoding uses all
    /// cores), and `sink` receives `(index, result)` in input order, one call at a time. A
    /// failure (to load or to run) is that item's result; the others go on. Memory stays
    /// bounded: a worker takes a new item only while fewer than `2 × in_flight` results wait
    /// behind a slow earlier one.
    ///
    /// ```no_run
    /// use texelflow::{Backend, GpuOptions, Image, Pipeline, Value};
    /// use texelflow::filters::color::Brightness;
    /// # fn main() -> texelflow::Result<()> {
    /// let (backend, _note) = Backend::auto(&GpuOptions::default());
    /// let pipe = Pipeline::new().then(Brightness::new(0.1)?);
    /// let paths = ["a.jpg", "b.jpg"];
    /// pipe.run_stream(&backend, paths.iter(), Image::open, 8, |k, result| {
    ///     if let Ok(Value::Image(img)) = result {
    ///         let _ = img.save(format!("out{k}.png"));
    ///     }
    /// });
    /// # Ok(()) }
    /// ```
    pub fn run_stream<T, R, I, L, S>(
        &self,
        backend: &Backend,
        inputs: I,
        load: L,
        in_flight: usize,
        sink: S,
    ) where
        I: Iterator<Item = T> + Send,
        R: Borrow<Image>,
        L: Fn(T) -> Result<R> + Sync,
        S: FnMut(usize, Result<Value>) + Send,
    {
        stream(
            inputs,
            |item| load(item).and_then(|img| self.run(backend, img.borrow())),
            in_flight,
            sink,
        );
    }

    /// `run` over many images in memory, up to `in_flight` at once; results in the order of
    /// `images`, a failure in its own place without stopping the others.
    pub fn run_many(
        &self,
        backend: &Backend,
        images: &[Image],
        in_flight: usize,
    ) -> Vec<Result<Value>> {
        let mut results: Vec<Result<Value>> = Vec::with_capacity(images.len());
        self.run_stream(backend, images.iter(), Ok, in_flight, |_, r| {
            results.push(r)
        });
        results.resize_with(images.len(), || Err(Error::internal("a worker stopped")));
        results
    }
}

/// The engine of `run_stream` for any per-item work (a pipeline run, an assessment): up to
/// `in_flight` items at once on as many threads, `sink` called with `(index, result)` in input
/// order, one call at a time; at most `2 × in_flight` results wait behind a slow earlier one.
pub fn stream<T, V, I, W, S>(inputs: I, work: W, in_flight: usize, sink: S)
where
    I: Iterator<Item = T> + Send,
    V: Send,
    W: Fn(T) -> Result<V> + Sync,
    S: FnMut(usize, Result<V>) + Send,
{
    let in_flight = in_flight.max(1);
    let state = Mutex::new(State {
        inputs,
        taken: 0,
        done: BTreeMap::new(),
        delivered: 0,
        draining: false,
    });
    let delivered = Condvar::new();
    let sink = Mutex::new(sink);
    let worker = || loop {
        // take the next item (cheap: loading happens below, outside the lock)
        let (k, item) = {
            let Ok(mut s) = state.lock() else { return };
            while s.taken - s.delivered >= 2 * in_flight {
                s = match delivered.wait(s) {
                    Ok(s) => s,
                    Err(_) => return,
                };
            }
            let Some(item) = s.inputs.next() else { return };
            s.taken += 1;
            (s.taken - 1, item)
        };
        let result = work(item);
        let Ok(mut s) = state.lock() else { return };
        s.done.insert(k, result);
        if s.draining {
            continue; // the draining worker will hand this one over
        }
        s.draining = true;
        loop {
            let next = s.delivered;
            let Some(r) = s.done.remove(&next) else { break };
            drop(s);
            if let Ok(mut f) = sink.lock() {
                f(next, r);
            }
            s = match state.lock() {
                Ok(s) => s,
                Err(_) => return,
            };
            // counted once the sink has returned, so the lookahead bound holds while it runs
            s.delivered += 1;
            delivered.notify_all();
        }
        s.draining = false;
    };
    std::thread::scope(|scope| {
        for _ in 0..in_flight {
            scope.spawn(worker);
        }
    });
}
