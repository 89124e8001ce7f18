//! Readbacks awaited instead of waited for: a browser cannot block on the GPU (its mapping
//! callbacks run from the page's event loop), so the async run API (`Pipeline::run_async`)
//! awaits this future. Natively it polls the device each time it is polled.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use super::context::MapResult;
use super::Gpu;
use crate::error::{Error, Result};

/// The mapping callbacks' results, and who waits for them.
#[derive(Default)]
struct State {
    results: Vec<MapResult>,
    waker: Option<Waker>,
}

/// Resolves once every buffer `start` asked to map is mapped (or failed to be).
pub(crate) struct MapFuture<'g> {
    gpu: &'g Gpu,
    state: Arc<Mutex<State>>,
}

impl<'g> MapFuture<'g> {
    /// Asks to map the first `len` bytes of each `(buffer, len)` for reading.
    pub(crate) fn start(gpu: &'g Gpu, buffers: &[(&wgpu::Buffer, u64)]) -> MapFuture<'g> {
        let state = Arc::new(Mutex::new(State {
            results: vec![None; buffers.len()],
            waker: None,
        }));
        for (i, (buffer, len)) in buffers.iter().enumerate() {
            let s = state.clone();
            buffer.map_async(wgpu::MapMode::Read, ..*len, move |res| {
                if let Ok(mut st) = s.lock() {
                    st.results[i] = Some(res);
                    if let Some(w) = st.waker.take() {
                        w.wake();
                    }
                }
            });
        }
        MapFuture { gpu, state }
    }

    /// `Some` once every callback came: the first error, or `Ok`.
    fn outcome(&self) -> Option<Result<()>> {
        let st = match self.state.lock() {
            Ok(st) => st,
            Err(_) => return Some(Err(Error::Gpu("readback state poisoned".into()))),
        };
        if st.results.iter().any(Option::is_none) {
            return None;
        }
        Some(
            st.results
                .iter()
                .flatten()
                .find_map(|r| r.as_ref().err())
                .map_or(Ok(()), |e| {
                    Err(Error::Gpu(format!("mapping a readback buffer: {e}")))
                }),
        )
    }
}

impl Future for MapFuture<'_> {
    type Output = Result<()>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        if let Some(done) = self.outcome() {
            return Poll::Ready(done);
        }
        if let Ok(mut st) = self.state.lock() {
            st.waker = Some(cx.waker().clone());
        }
        // natively nothing runs the callbacks unless the device is polled: poll it, and ask
        // to be polled again (a browser runs them from its event loop, which wakes us)
        #[cfg(not(target_arch = "wasm32"))]
        {
            if let Err(e) = self.gpu.device.poll(wgpu::PollType::Poll) {
                return Poll::Ready(Err(Error::DeviceLost(e.to_string())));
            }
            if let Some(done) = self.outcome() {
                return Poll::Ready(done);
            }
            std::thread::yield_now();
            cx.waker().wake_by_ref();
        }
        #[cfg(target_arch = "wasm32")]
        let _ = self.gpu;
        Poll::Pending
    }
}
