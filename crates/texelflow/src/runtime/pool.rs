//! Storage-buffer pool. Buffers are bucketed by rounded size and handed back when a value
//! dies (the executor frees by liveness), so a graph re-run allocates nothing and a long
//! chain ping-pongs between two buffers.

use std::collections::HashMap;
use std::sync::Arc;

/// Buffers not in use, by size class.
#[derive(Default)]
pub struct BufferPool {
    free: HashMap<u64, Vec<Arc<wgpu::Buffer>>>,
    /// Buffers created over the pool's life (for tests of reuse).
    pub created: usize,
}

/// Round sizes up so near-equal requests share buffers: 256 B granularity below 64 KiB,
/// then steps of 1/16 of the next power of two (at most 6.25% waste).
pub fn size_class(bytes: u64) -> u64 {
    let bytes = bytes.max(16);
    if bytes <= 65536 {
        return bytes.div_ceil(256) * 256;
    }
    let step = bytes.next_power_of_two() / 16;
    bytes.div_ceil(step) * step
}

impl BufferPool {
    /// A storage buffer of at least `bytes` bytes (contents undefined).
    pub fn take(&mut self, device: &wgpu::Device, bytes: u64) -> Arc<wgpu::Buffer> {
        let class = size_class(bytes);
        if let Some(b) = self.free.get_mut(&class).and_then(|v| v.pop()) {
            return b;
        }
        self.created += 1;
        Arc::new(device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("texelflow.pool"),
            size: class,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }))
    }
    /// Returns a buffer for reuse.
    pub fn give(&mut self, buf: Arc<wgpu::Buffer>) {
        self.free.entry(buf.size()).or_default().push(buf);
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;
    #[test]
    fn size_classes_round_up_with_bounded_waste() {
        for b in [1u64, 255, 256, 70_000, 33_177_600, 1 << 30] {
            let c = size_class(b);
            assert!(c >= b);
            assert!(
                c as f64 <= (b.max(256) as f64) * 1.0625 + 256.0,
                "{b} -> {c}"
            );
        }
    }
}
